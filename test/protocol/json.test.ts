// The exact-number JSON parser that reads every request the sandbox receives and every answer
// the CLI verifies. JSON.parse is its oracle for what is JSON at all, and an independent reader
// (lossless-json's) for what a text holds; it differs on purpose only where numbers keep their
// literals, a repeated key changes its value, or nesting is absurdly deep.
import {parse as losslessParse} from 'lossless-json'
import {describe, expect, it} from 'vitest'
import {isLosslessNumber, JsonNumberTooLongError, JsonRepeatedKeyError, JsonSyntaxError, MAX_JSON_DEPTH, parseJson, parseJsonObject, StringToSignTooLongError, type JsonValue} from '../../src/protocol/json.js'
import {MAX_STRING_TO_SIGN_CHARS} from '../../src/protocol/canonical.js'
import {generate, random} from '../helpers/json-texts.js'

/**
 * What a text holds, numbers as JS numbers, for a text JSON.parse takes. Not JSON.parse's own
 * answer: in Node 24 and 26, after many parses, V8 read a key ending in an escape wrongly ("a\t"
 * as "a\\", "é\n" as "é\\") where parseJson and Node 20 read it right.
 */
const holds = (text: string): unknown => losslessParse(text, null, Number)

/** What JSON.parse would give: numbers as JS numbers. */
function asJsonParse(value: JsonValue): unknown {
  if (isLosslessNumber(value)) return Number(value.value)
  if (Array.isArray(value)) return value.map(asJsonParse)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, {value: asJsonParse(item), enumerable: true, writable: true, configurable: true})
    return out
  }
  return value
}

describe('parseJson', () => {
  it('reads what JSON.parse reads, for 3,000 generated texts, numbers kept as their literals', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const text = generate(random(seed), 0)
      const parsed = parseJson(text)
      expect(asJsonParse(parsed), `seed ${seed}: ${text}`).toEqual(holds(text))
    }
  })

  it('reads keys with two-byte characters and escapes as written (where Node 24\'s JSON.parse once did not)', () => {
    const parsed = parseJsonObject(String.raw`{"€\"":1,"a\ud800":2,"中\n\u00e9":3,"\ud83d\ude00\\":4}`)
    expect(Object.keys(parsed)).toEqual(['€"', 'a\ud800', '中\né', '\ud83d\ude00\\'])
  })

  it('keeps number literals exactly as written', () => {
    const body = parseJsonObject('{"orderId":1990000000000000001,"amount":12.50,"rate":1.5E-7,"n":[-0,100.0]}')
    expect(body.orderId).toMatchObject({value: '1990000000000000001'})
    expect(body.amount).toMatchObject({value: '12.50'})
    expect(body.rate).toMatchObject({value: '1.5E-7'})
    expect((body.n as JsonValue[]).map((n) => (n as {value: string}).value)).toEqual(['-0', '100.0'])
  })

  it('refuses what JSON.parse refuses, for 20,000 texts with one character changed', () => {
    const next = random(42)
    // raw control characters and the spaces JSON does not count as white space (vertical tab,
    // form feed, no-break space, BOM): refused inside strings and between tokens alike
    const alphabet = ['"', '\\', '{', '}', '[', ']', ':', ',', '-', '.', 'e', '+', '0', '1', 'n', 't', 'u', ' ', '\u0000', 'x', '\n', '\t', '\u000b', '\u000c', '\u001f', '\u00a0', '\ufeff']
    let refused = 0
    for (let n = 0; n < 20_000; n++) {
      const text = generate(next, 0)
      const at = Math.floor(next() * text.length)
      const change = Math.floor(next() * 3)
      const broken = change === 0 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + alphabet[Math.floor(next() * alphabet.length)] + text.slice(at + (change === 1 ? 1 : 0))
      try {
        JSON.parse(broken)
      } catch {
        refused++
        expect(() => parseJson(broken), broken).toThrow(JsonSyntaxError)
        continue
      }
      let oracle: unknown
      try {
        oracle = holds(broken)
      } catch (error) {
        // lossless-json refuses a key repeated with another value, as parseJson does
        expect((error as Error).message, broken).toMatch(/Duplicate key/)
        expect(() => parseJson(broken), broken).toThrow(/is repeated with another value/)
        continue
      }
      try {
        expect(asJsonParse(parseJson(broken)), broken).toEqual(oracle)
      } catch (error) {
        // the differences on purpose: a key repeated with another value, a number too long written out
        expect(error, broken).toBeInstanceOf(JsonSyntaxError)
        expect((error as Error).message, broken).toMatch(/is repeated with another value|written out would be over 100 characters/)
      }
    }
    expect(refused).toBeGreaterThan(5000)
  })

  it.each([
    ['', 'a JSON value expected but reached the end of input at position 0'],
    ['{"a":1', "',' or '}' expected but reached the end of input at position 6"],
    ['{"a" 1}', "':' expected after an object key but got \"1\" at position 5"],
    ['[1,]', 'a JSON value expected but got "]" at position 3'],
    ['{"a":1}x', 'end of input expected but got "x" at position 7'],
    ['"a\u0001"', 'a control character must be escaped in a string but got "\\u0001" at position 2'],
    ['"\\x"', 'an escape character expected after \\ but got "x" at position 2'],
    ['"\\u12"', 'four hex digits expected after \\u but got "\\\\" at position 1'],
    ['01', 'end of input expected but got "1" at position 1'],
    ['-', 'a digit expected in the number "-" but reached the end of input at position 1'],
    ['1.e5', 'a digit expected in the number "1." but got "e" at position 2'],
  ])('refuses %j, saying where: %s', (text, message) => {
    expect(() => parseJson(text)).toThrow(new JsonSyntaxError(message))
  })

  it('refuses a key repeated with another value, and takes one repeated with the same', () => {
    expect(() => parseJsonObject('{"amount":1,"title":"T","amount":100}')).toThrow(new JsonRepeatedKeyError('amount', 24, 'the key "amount" at position 24 is repeated with another value'))
    // a syntax error all the same, for every reader that catches those
    expect(() => parseJsonObject('{"amount":1,"amount":2}')).toThrow(JsonSyntaxError)
    expect(() => parseJsonObject('{"a":1.0,"a":1}')).toThrow(/"a" at position 9 is repeated with another value/)
    expect(() => parseJsonObject('{"a":{"b":[1,2]},"a":{"b":[1,3]}}')).toThrow(/"a" at position 17 is repeated/)
    expect(parseJsonObject('{"a":{"b":[1,"x",null]},"a":{"b":[1,"x",null]}}')).toEqual(parseJsonObject('{"a":{"b":[1,"x",null]}}'))
  })

  it('keeps a "__proto__" key as a field, never as the prototype', () => {
    const body = parseJsonObject('{"__proto__":{"amount":100}}')
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype)
    expect(Object.keys(body)).toEqual(['__proto__'])
    expect((body as {amount?: unknown}).amount).toBeUndefined()
  })

  it(`takes ${MAX_JSON_DEPTH} levels of nesting and refuses one more, whatever the stack`, () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)
    expect(() => parseJson(nested(MAX_JSON_DEPTH))).not.toThrow()
    expect(() => parseJson(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`)).not.toThrow()
    expect(() => parseJson(nested(MAX_JSON_DEPTH + 1))).toThrow(new JsonSyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels but got "[" at position ${MAX_JSON_DEPTH}`))
    // a megabyte of brackets is refused at once, not by running out of stack
    expect(() => parseJson(nested(500_000))).toThrow(/nested deeper than/)
  })

  it('refuses a body whose string to sign would be over 32 Mi characters, counting each value with its whole key', () => {
    // 70 KB: a 20,000-character key over 25,000 values flattens to 500 million characters
    expect(() => parseJson(`{"${'k'.repeat(20_000)}":[${Array.from({length: 25_000}, () => '1').join(',')}]}`)).toThrow(StringToSignTooLongError)
    // `k=` + the value + `&`: exactly at the bound, and one over
    const value = (length: number) => `{"k":"${'v'.repeat(length)}"}`
    expect(() => parseJson(value(MAX_STRING_TO_SIGN_CHARS - 3))).not.toThrow()
    expect(() => parseJson(value(MAX_STRING_TO_SIGN_CHARS - 2))).toThrow(StringToSignTooLongError)
  })

  it('refuses a number whose plain form is over 100 characters', () => {
    expect(() => parseJson(`[1${'0'.repeat(100)}]`)).toThrow(JsonNumberTooLongError)
    expect(parseJson(`[1${'0'.repeat(99)}]`)).toEqual([expect.objectContaining({value: `1${'0'.repeat(99)}`})])
    expect(() => parseJson('{"a":1e100}')).toThrow(JsonNumberTooLongError)
    expect(parseJson('{"a":1.50e1}')).toEqual({a: expect.objectContaining({value: '1.50e1'})})
    expect(() => parseJson(`[${'9'.repeat(1_000_000)}]`)).toThrow(JsonNumberTooLongError)
  })
})
