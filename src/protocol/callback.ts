// Checking a callback as a merchant receives it, for both protocols: `system` (a signed JSON
// envelope, verified from its raw text) and `easy_pay` (query parameters, MD5 or RSA). Shared
// by `listen` and `verify --callback`, so both say the same thing about the same callback.
import type {KeyObject} from 'node:crypto'
import {diagnoseSignature} from './diagnose.js'
import {readEnvelope} from './envelope.js'
import {diagnoseEpayMd5, diagnoseEpayRsa, type EpayDiagnosis} from './epay-diagnose.js'
import {epayStringToSign} from './epay.js'
import {foreignInputProblem} from './foreign-input.js'
import {isLosslessNumber, type JsonValue} from './json.js'
import {keyFingerprint} from './keys.js'
import {EPAY_TIMESTAMP_WINDOW_SECONDS} from './epay-api.js'
import {MoneyFormatError, yuanToCents} from './money.js'

export type CallbackProtocol = 'system' | 'easy_pay'

export interface CallbackKeys {
  /** Verifies `system` callbacks and RSA (V2) notifications. */
  platformKey?: KeyObject
  /** Verifies MD5 (V1) notifications. */
  md5Key?: string
  /** Keys the platform may have signed with by mistake, named in a `wrong key` explanation. */
  otherKeys?: {name: string; key: KeyObject}[]
}

/** What a callback is about, for one line of output. */
interface CallbackSummary {
  event?: string
  /** Business numbers present: orderNo, bizRefundNo, transferNo, ... or trade_no, out_trade_no. */
  numbers: Record<string, string>
  /** In cents (easy_pay `money` is converted exactly). */
  amount?: string
  status?: string
}

export interface CallbackCheck {
  protocol: CallbackProtocol
  verified: boolean
  /** Why it did not verify. */
  reason?: string
  signType: 'RSA' | 'MD5'
  /** The key checked: a fingerprint, or `MD5 key` (never the key itself). */
  key?: string
  /** The rule's string to sign; for MD5 the key is shown as a placeholder. */
  expectedString: string
  /** The string the sign does verify against, when a known variant matched. */
  matchingString?: string
  summary: CallbackSummary
}

const NUMBER_KEY = /(?:order|refund|alloc|transfer|trade)_?no$/i

function text(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return isLosslessNumber(value) ? value.value : undefined
}

function numbersOf(fields: Record<string, JsonValue>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(fields)) {
    const shown = text(value)
    if (NUMBER_KEY.test(key) && shown) out[key] = shown
  }
  return out
}

/**
 * Verifies a `system` callback from its raw body, with the reason when it does not verify.
 * Throws JsonSyntaxError when the body is not a JSON object.
 */
export function checkSystemCallback(raw: string, keys: CallbackKeys): CallbackCheck {
  const {platformKey} = keys
  const read = readEnvelope(raw, platformKey)
  const data = read.body.data !== null && typeof read.body.data === 'object' && !Array.isArray(read.body.data) && !isLosslessNumber(read.body.data)
    ? (read.body.data as Record<string, JsonValue>)
    : {}
  const check: CallbackCheck = {
    protocol: 'system',
    verified: read.verified === true,
    signType: 'RSA',
    key: platformKey ? keyFingerprint(platformKey) : undefined,
    expectedString: read.canonical,
    summary: {event: text(read.body.event), numbers: numbersOf(data), amount: text(data.amount), status: text(data.status)},
  }
  // keys or strings that would make the string to sign ambiguous: never believed (section 1)
  const foreign = foreignInputProblem(read.body, {flatData: true})
  if (foreign) Object.assign(check, {verified: false, reason: `refused: ${foreign.field}: ${foreign.message}`})
  else if (!read.signature) check.reason = 'no sign field'
  else if (!platformKey) check.reason = 'no platform public key to verify with'
  else if (!check.verified) {
    const diagnosis = diagnoseSignature({body: read.body, signature: read.signature, key: platformKey, otherKeys: keys.otherKeys})
    check.reason = diagnosis.explanation
    check.matchingString = diagnosis.matchingString
  }
  return check
}

/** The parameters of an easy_pay notification given as a query string, a path or a whole URL. */
export function parseEasyPayInput(input: string): Record<string, string> {
  const trimmed = input.trim()
  // Only a URL or path is cut at its `?`: in a bare query string a `?` belongs to some value.
  const query = /^(?:https?:\/\/|\/|\?)/i.test(trimmed) ? trimmed.slice(trimmed.indexOf('?') + 1 || trimmed.length) : trimmed
  return Object.fromEntries(new URLSearchParams(query.split('#')[0]))
}

/** MD5 or RSA as `sign_type` says; without one, a 32-digit hex sign is MD5 (V1 may omit it). */
export function easyPaySignType(params: Record<string, string>): 'RSA' | 'MD5' | undefined {
  const declared = (params.sign_type ?? '').toUpperCase()
  if (declared === 'RSA' || declared === 'MD5') return declared
  if (declared !== '') return undefined
  return /^[0-9a-f]{32}$/i.test(params.sign ?? '') ? 'MD5' : 'RSA'
}

/** Verifies an easy_pay notification (decoded query parameters), with the reason when not. */
export function checkEasyPayCallback(params: Record<string, string>, keys: CallbackKeys): CallbackCheck {
  let amount: string | undefined
  try {
    amount = params.money === undefined ? undefined : String(yuanToCents(params.money))
  } catch (error) {
    if (!(error instanceof MoneyFormatError)) throw error
  }
  const summary: CallbackSummary = {numbers: numbersOf(params), amount, status: params.trade_status}
  const signType = easyPaySignType(params)
  const fail = (reason: string): CallbackCheck => ({protocol: 'easy_pay', verified: false, reason, signType: signType ?? 'RSA', expectedString: epayStringToSign(params), summary})
  if (!signType) return fail(`unknown sign_type "${params.sign_type}" (expected MD5 or RSA)`)
  const sign = params.sign
  if (!sign) return fail('no sign parameter')
  let diagnosis: EpayDiagnosis
  let key: string
  if (signType === 'MD5') {
    if (!keys.md5Key) return fail('no MD5 key to verify with')
    diagnosis = diagnoseEpayMd5({params, sign, md5Key: keys.md5Key})
    key = 'MD5 key'
  } else {
    if (!keys.platformKey) return fail('no platform public key to verify with')
    diagnosis = diagnoseEpayRsa({params, sign, key: keys.platformKey, otherKeys: keys.otherKeys})
    key = keyFingerprint(keys.platformKey)
  }
  return {
    protocol: 'easy_pay',
    verified: diagnosis.verified,
    reason: diagnosis.explanation,
    signType,
    key,
    expectedString: diagnosis.expectedString,
    matchingString: diagnosis.matchingString,
    summary,
  }
}

/**
 * Why RSA (V2) parameters would be refused for their age, when they would: V2 clients refuse an
 * answer or notification, and the platform a request (`signedBy` the merchant), whose
 * `timestamp` is more than 300 s from their clock, whatever the signature says.
 */
export function staleEasyPayTimestamp(params: Record<string, string>, now: Date, signedBy: 'platform' | 'merchant' = 'platform'): string | undefined {
  const timestamp = params.timestamp
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return undefined
  const age = Math.floor(now.getTime() / 1000) - Number(timestamp)
  if (Math.abs(age) <= EPAY_TIMESTAMP_WINDOW_SECONDS) return undefined
  const off = age > 0 ? `${age} s old` : `${-age} s ahead of this machine's clock`
  const window = `more than ${EPAY_TIMESTAMP_WINDOW_SECONDS} s`
  const next = signedBy === 'merchant' ? `the platform refuses ${window}): sign it again with a fresh timestamp` : `V2 clients refuse ${window}): have the platform send it again, with a fresh timestamp`
  return `the signature holds, but its timestamp ${timestamp} is ${off} (${next}`
}
