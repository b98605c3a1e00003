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

/**
 * A text someone else chose cut to its first `max` characters, saying how long it was: how a log
 * entry or an answer keeps a hostile megabyte from costing megabytes (a surrogate pair is never
 * cut in two).
 */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text
  const end = /[\ud800-\udbff]/.test(text[max - 1]) ? max - 1 : max
  return `${text.slice(0, end)}... (${text.length} characters in all)`
}

/** How much of its own string to sign a 20052 answer echoes (protocol-notes section 2). */
const ECHOED_CHARS = 8 * 1024
const CLIP_MARK = /\.\.\. \((\d+) characters in all\)$/
const STRING_MARKER = 'string to sign: '

/** The 20052 message's end: the server's string to sign, clipped past 8 KiB (a hostile body must not buy a huge answer). */
export const echoedStringToSign = (text: string): string => `${STRING_MARKER}${clipped(text, ECHOED_CHARS)}`

/** The server's string to sign as a 20052 message echoes it: whole, or clipped with its full length. */
export interface EchoedString {
  text: string
  /** Set when the echo was clipped: the whole string's length. */
  fullLength?: number
}

/** The sandbox (and the real platform) put their own string to sign in the 20052 message. */
export function serverStringFromMessage(message: string): EchoedString | undefined {
  const at = message.indexOf(STRING_MARKER)
  if (at === -1) return undefined
  const text = message.slice(at + STRING_MARKER.length)
  const clip = CLIP_MARK.exec(text)
  return clip && clip.index <= ECHOED_CHARS && Number(clip[1]) > clip.index ? {text: text.slice(0, clip.index), fullLength: Number(clip[1])} : {text}
}

/** Ours as far as the server's echo goes, so that the two are compared over what was echoed. */
export const oursAsEchoed = (ours: string, echoed: EchoedString): string => (echoed.fullLength === undefined ? ours : ours.slice(0, echoed.text.length))
