// canonicalBase64Problem (protocol-notes section 1): the one spelling of a signature's bytes is
// taken, every other spelling a lenient decoder reads as the same bytes is refused with why.
import {randomBytes} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {canonicalBase64Problem} from '../../src/protocol/signature.js'

describe('canonicalBase64Problem', () => {
  it('takes the standard encoding of any bytes: no, one or two "="', () => {
    for (const length of [1, 2, 3, 4, 5, 255, 256, 512]) {
      const text = randomBytes(length).toString('base64')
      expect(canonicalBase64Problem(text), text).toBeUndefined()
    }
    expect(canonicalBase64Problem('+/+/')).toBeUndefined()
  })

  // "hello world!!" is aGVsbG8gd29ybGQhIQ== (13 bytes: the last character carries 4 unused bits)
  it.each([
    ['', 'is empty'],
    ['aGVsbG8gd29ybGQhIQ==\n', 'contains a newline at character 21'],
    ['aGVsbG8gd29ybGQhIQ==\r\n', 'contains a carriage return at character 21'],
    [' aGVsbG8gd29ybGQhIQ==', 'contains a space at character 1'],
    ['aGVsbG8g\td29ybGQhIQ==', 'contains a tab at character 9'],
    ['aGVsbG8gd29ybGQhIQ==\u00a0', 'contains whitespace (U+00A0) at character 21'],
    ['aGVsbG8gd29ybGQhIQ', 'lacks its padding: it needs 2 "=" at the end, not 0'],
    ['aGVsbG8gd29ybGQhIQ=', 'lacks its padding: it needs 2 "=" at the end, not 1'],
    ['aGVsbG8gd29ybGQhIQ===', 'has 1 "=" too many at the end (2 needed)'],
    ['aGVsbG8gd29ybGQh====', 'has 4 "=" too many at the end (0 needed)'],
    ['a-Vs', 'uses the URL-safe alphabet ("-" at character 2)'],
    ['a_Vs', 'uses the URL-safe alphabet ("_" at character 2)'],
    ['aGVs*bG8gd29ybGQhIQ==', 'contains "*" at character 5, which is not a Base64 character'],
    ['aGVs\u00e9bG8=', 'contains U+00E9 at character 5'],
    ['aGV=bG8gd29ybGQhIQ==', 'has "=" at character 4: padding goes only at the end'],
    ['aGVsb', 'has 5 Base64 characters, a length no bytes encode to'],
    ['aGVsbG8gd29ybGQhIR==', 'has unused bits set in its last character'],
    ['aGVsbG8gd29ybGQhIb==', 'has unused bits set in its last character'],
  ])('%j: %s', (text, why) => {
    expect(canonicalBase64Problem(text)).toContain(why)
    // each of these decodes, leniently, to bytes whose canonical spelling is another text
    if (text !== '' && !/[-_]/.test(text)) expect(Buffer.from(text, 'base64').toString('base64')).not.toBe(text)
  })

  it('takes exactly the texts that are the standard encoding of their bytes, every padding and last character tried', () => {
    const characters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_*'
    const texts = new Set<string>()
    for (const a of characters) for (const b of characters) for (const c of characters) for (const d of characters) if (d === '=' || d === 'A') texts.add(`QUJD${a}${b}${c}${d}`)
    let taken = 0
    for (const text of texts) {
      const takenHere = canonicalBase64Problem(text) === undefined
      const canonical = Buffer.from(text, 'base64').toString('base64') === text
      if (takenHere !== canonical) expect({text, taken: takenHere}).toEqual({text, taken: canonical})
      if (takenHere) taken++
    }
    // ending in "A": every quad of the alphabet; in "=": 16 last characters before one "=", 4 before two
    expect(taken).toBe(64 ** 3 + 64 * 64 * 16 + 64 * 4)
  })

  it('is linear on a run of "=" followed by anything else (an epay V2 sign or answer of 1,000,000 "=" and an "A")', () => {
    // trimming the padding with /=+$/ tried the run from each of its "=": hours for this text
    expect(canonicalBase64Problem(`${'='.repeat(1_000_000)}A`)).toBe('has "=" at character 1: padding goes only at the end')
  })
})
