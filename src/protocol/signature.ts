// SHA256withRSA (PKCS#1 v1.5) over the UTF-8 string to sign, Base64 with padding.
import {sign, verify, type KeyObject} from 'node:crypto'

// One-shot sign() and verify(): createSign and createVerify build a stream around each call.
export function signString(text: string, privateKey: KeyObject): string {
  return sign('sha256', Buffer.from(text, 'utf8'), privateKey).toString('base64')
}

/**
 * The same signature, made on libuv's thread pool: RSA signing is most of the CPU of a signed
 * answer, and off the main thread a server signs on every core while it goes on parsing.
 */
export function signStringAsync(text: string, privateKey: KeyObject): Promise<string> {
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(text, 'utf8'), privateKey, (error, signature) => (error ? reject(error) : resolve(signature.toString('base64'))))
  })
}

export function verifyString(text: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return verify('sha256', Buffer.from(text, 'utf8'), publicKey, Buffer.from(signature, 'base64'))
  } catch {
    return false
  }
}

/** The same check, made on the thread pool: a batch run goes on sending while its answers are verified. */
export function verifyStringAsync(text: string, signature: string, publicKey: KeyObject): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      verify('sha256', Buffer.from(text, 'utf8'), publicKey, Buffer.from(signature, 'base64'), (error, verified) => resolve(!error && verified))
    } catch {
      resolve(false)
    }
  })
}

// with a length of whole quads: before one "=" a last character with 2 unused bits zero, before two, 4
const CANONICAL_BASE64 = /^[A-Za-z0-9+/]*(?:[AEIMQUYcgkosw048]=|[AQgw]==)?$/

const WHITESPACE_NAMES: Record<string, string> = {'\n': 'a newline', '\r': 'a carriage return', '\t': 'a tab', ' ': 'a space'}

/**
 * Why a `sign` is not canonical Base64 (standard alphabet, padding, no whitespace, unused bits
 * zero), or undefined when it is (protocol-notes section 1). Lenient decoders read many texts as
 * one signature, so whoever remembers or compares signatures refuses every other spelling.
 * Linear in the length of the text.
 */
export function canonicalBase64Problem(text: string): string | undefined {
  // the one canonical spelling: whole quads, and a last character before padding with its unused bits zero
  if (text !== '' && text.length % 4 === 0 && CANONICAL_BASE64.test(text)) return undefined
  if (text === '') return 'is empty'
  const at = (index: number) => `at character ${index + 1}`
  const space = /\s/.exec(text)
  if (space) return `contains ${WHITESPACE_NAMES[space[0]] ?? `whitespace (U+${space[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`} ${at(space.index)}: send the Base64 text exactly as it was encoded`
  const urlSafe = /[-_]/.exec(text)
  if (urlSafe) return `uses the URL-safe alphabet ("${urlSafe[0]}" ${at(urlSafe.index)}): standard Base64 with "+" and "/" is required`
  const junk = /[^A-Za-z0-9+/=]/u.exec(text)
  if (junk) return `contains ${/^[\x21-\x7e]$/.test(junk[0]) ? `"${junk[0]}"` : `U+${junk[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`} ${at(junk.index)}, which is not a Base64 character`
  // counted, not /=+$/: that regex is quadratic on a run of "=" followed by anything else
  let end = text.length
  while (end > 0 && text[end - 1] === '=') end--
  const data = text.slice(0, end)
  const inner = data.indexOf('=')
  if (inner !== -1) return `has "=" ${at(inner)}: padding goes only at the end`
  const needed = [0, -1, 2, 1][data.length % 4]
  if (needed === -1) return `has ${data.length} Base64 characters, a length no bytes encode to`
  const padding = text.length - data.length
  if (padding < needed) return `lacks its padding: it needs ${needed} "=" at the end, not ${padding}`
  if (padding > needed) return `has ${padding - needed} "=" too many at the end (${needed} needed)`
  if (Buffer.from(text, 'base64').toString('base64') !== text) {
    return 'has unused bits set in its last character: it is not the canonical encoding of its bytes (another spelling of the same signature)'
  }
  return undefined
}
