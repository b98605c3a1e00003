// The compatibility module's signatures (protocol-notes section 7): MD5 with the merchant's MD5
// key (V1) and SHA256withRSA (V2), over the same selection of parameters. Requests, responses
// and `easy_pay` notifications all use it.
import {createHash, timingSafeEqual, type KeyObject} from 'node:crypto'
import {joinPairs, type Pair} from './canonical.js'
import {signString, verifyString} from './signature.js'

export type EpayParams = Record<string, unknown>

/** Where the MD5 key goes: right after the string (the default) or as `&key=KEY`. */
export type Md5KeyForm = 'direct' | 'param'

const SKIPPED = new Set(['sign', 'sign_type'])

/** Sorts by the keys' UTF-8 bytes, as the rule says (code-unit order differs for astral characters). */
export function sortByKeyBytes(pairs: Pair[]): Pair[] {
  return pairs.sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
}

/**
 * The signed pairs, sorted: every parameter but `sign`, `sign_type`, empty strings and
 * missing values. Arrays and objects are skipped too: V2 JSON bodies may carry them, while a
 * form-decoded V1 request never does, so one selection serves both. `trimmed` also drops
 * values that are empty after trimming whitespace: the V2 selection (V1 keeps them).
 */
export function epayPairs(params: EpayParams, trimmed = false): Pair[] {
  const pairs: Pair[] = []
  for (const [key, value] of Object.entries(params)) {
    if (SKIPPED.has(key) || value === null || value === undefined || value === '' || typeof value === 'object') continue
    const text = String(value)
    if (trimmed && text.trim() === '') continue
    pairs.push([key, text])
  }
  return sortByKeyBytes(pairs)
}

/** `k=v&k=v` over the signed pairs (V1 selection), values raw (decoded, never URL-encoded); nothing appended. */
export function epayStringToSign(params: EpayParams): string {
  return joinPairs(epayPairs(params))
}

/** The V2 string to sign: whitespace-only values dropped, as the V2 merchant SDK does. */
export function epayV2StringToSign(params: EpayParams): string {
  return joinPairs(epayPairs(params, true))
}

/**
 * The strings a V2 signature is accepted over: the V2 selection, then (when it differs) the
 * one that keeps whitespace-only values, since some servers and clients drop only empty ones.
 */
export function epayRsaStrings(params: EpayParams): string[] {
  const v2 = epayV2StringToSign(params)
  const v1 = epayStringToSign(params)
  return v1 === v2 ? [v2] : [v2, v1]
}

/** MD5 over a string to sign with the key appended; lower-case hex. */
export function md5OfString(text: string, md5Key: string, form: Md5KeyForm = 'direct'): string {
  return createHash('md5')
    .update(form === 'param' ? `${text}&key=${md5Key}` : text + md5Key, 'utf8')
    .digest('hex')
}

export function signMd5(params: EpayParams, md5Key: string, form: Md5KeyForm = 'direct'): string {
  return md5OfString(epayStringToSign(params), md5Key, form)
}

/** Constant-time check of an MD5 sign over a given string (upper-case hex accepted). */
export function md5Matches(text: string, sign: string, md5Key: string, form: Md5KeyForm = 'direct'): boolean {
  const expected = Buffer.from(md5OfString(text, md5Key, form), 'utf8')
  const given = Buffer.from(sign.toLowerCase(), 'utf8')
  return expected.length === given.length && timingSafeEqual(expected, given)
}

export function signRsa(params: EpayParams, privateKey: KeyObject): string {
  return signString(epayV2StringToSign(params), privateKey)
}

export function verifyRsa(params: EpayParams, sign: string, publicKey: KeyObject): boolean {
  return epayRsaStrings(params).some((text) => verifyString(text, sign, publicKey))
}
