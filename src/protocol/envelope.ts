// Reading platform answers from their raw text: a SignedResult is believed only when its
// `sign` verifies over the canonical string of exactly the bytes received.
import type {KeyObject} from 'node:crypto'
import {canonicalString} from './canonical.js'
import {isLosslessNumber, type JsonObject, parseJsonObject} from './json.js'
import {verifyString, verifyStringAsync} from './signature.js'

interface ReadEnvelope {
  body: JsonObject
  canonical: string
  signature?: string
  /** true: verified; false: a sign that does not verify; undefined: no sign at all. */
  verified?: boolean
}

export function readEnvelope(raw: string, platformKey: KeyObject | undefined): ReadEnvelope {
  const body = parseJsonObject(raw)
  const canonical = canonicalString(body)
  const signature = typeof body.sign === 'string' && body.sign !== '' ? body.sign : undefined
  if (!signature) return {body, canonical}
  return {body, canonical, signature, verified: platformKey ? verifyString(canonical, signature, platformKey) : undefined}
}

/** The same reading, with the signature verified on the thread pool. */
export async function readEnvelopeAsync(raw: string, platformKey: KeyObject | undefined): Promise<ReadEnvelope> {
  const read = readEnvelope(raw, undefined)
  if (!read.signature || !platformKey) return read
  return {...read, verified: await verifyStringAsync(read.canonical, read.signature, platformKey)}
}

/** The `code` of a SignedResult or Result, as a number (NaN when absent). */
export function resultCode(body: JsonObject): number {
  const code = body.code
  // a number, or an integer written as a string (PHP platforms); "", [], false or true are no
  // code at all (Number() reads each of them as 0 or 1: success to an unsigned reader)
  if (isLosslessNumber(code)) return Number(code.value)
  if (typeof code === 'number') return code
  if (typeof code === 'string' && /^-?\d{1,10}$/.test(code)) return Number(code)
  return Number.NaN
}

/** The message of either envelope: `msg` (SignedResult) or `message` (Result). */
export function resultMessage(body: JsonObject): string {
  const value = body.msg ?? body.message
  return typeof value === 'string' ? value : ''
}

/** The sandbox (and the real platform) put their own string to sign in the 20052 message. */
export function serverStringFromMessage(message: string): string | undefined {
  const marker = 'string to sign: '
  const at = message.indexOf(marker)
  return at === -1 ? undefined : message.slice(at + marker.length)
}
