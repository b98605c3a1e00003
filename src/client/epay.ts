// The compatibility module's client (protocol-notes section 7): form-encoded POSTs signed with
// the MD5 key (V1) or the merchant key (V2, with a timestamp), answers read from their raw text
// and, for V2, verified with the platform key over the flat scalar fields, the timestamp within
// the window, and `data` checked against the signed fields (the signature does not cover it).
// V1 answers success with code 1 (written so), failure with -1 (V2: 0 and a platform code); a
// success about another order or amount than asked is refused (exit 3). Secrets never
// reach --debug: the MD5 key is shown as `{MD5 key}`, the V1 query's `key` redacted.
import {endpointUrl, formBody, httpRequest} from './http.js'
import {countTries} from './pipeline.js'
import type {KeyObject} from 'node:crypto'
import {NO_MD5_KEY, NOT_VERIFIED, PlatformError, SignatureError, TransportError, UsageError} from '../errors.js'
import {EPAY_TIMESTAMP_WINDOW_SECONDS, epayMoneyToCents, scalarFields, type EpayVersion, PAY_TYPE_OF_BODY} from '../protocol/epay-api.js'
import {epayStringToSign, epayV2StringToSign, signMd5, signRsa, verifyRsa, type Md5KeyForm} from '../protocol/epay.js'
import {canonicalBase64Problem} from '../protocol/signature.js'
import {oursAsEchoed, resultCode, resultMessage, serverStringFromMessage} from '../protocol/envelope.js'
import {isLosslessNumber, JsonTooCostlyError, JsonSyntaxError, parseJsonObject, stringifyJson, toPlain, type JsonObject, type JsonValue} from '../protocol/json.js'

export interface EpayConfig {
  baseUrl: string
  /** The merchant number of the module (`pid`). */
  pid?: string
  /** V1 only. */
  md5Key?: string
  md5KeyForm?: Md5KeyForm
  /** V2: signs requests. */
  privateKey?: KeyObject
  /** V2: verifies answers. */
  platformKey?: KeyObject
  /** false only with --no-verify. */
  verify: boolean
  timeoutMs?: number
  debug?: (line: string) => void
  now?: () => Date
  /** Set while the local sandbox waits to be started: fills in the address, pid and keys on the first call (see ClientConfig). */
  connect?: () => Promise<void>
}

interface EpayRequest {
  version: EpayVersion
  url: string
  /** Sent form-encoded. May hold a secret (the V1 query's `key`): print `shownParams` instead. */
  params: Record<string, string>
  /** The string the sign covers; for MD5 with `{MD5 key}` where the key goes. Absent for the V1 query. */
  canonicalString?: string
}

interface EpayResponse {
  httpStatus: number
  raw: string
  body: JsonObject
  /** true verified (V2); undefined: not verified (V1 answers are never signed, or --no-verify). */
  verified?: boolean
  /** The redirect target of a submit. */
  location?: string
  /**
   * What may be believed of `data`: for a verified V2 answer only the fields that agree with
   * signed flat fields (the signature does not cover `data`); otherwise `data` as received.
   */
  data?: JsonValue
}

export interface EpayResult {
  request: EpayRequest
  /** Undefined for a dry run. */
  response?: EpayResponse
}

interface EpayCallSpec {
  version: EpayVersion
  path: string
  fields: Record<string, string | undefined>
  /** Reads are re-signed and retried after a transport failure; creates and actions never are. */
  kind: 'create' | 'read' | 'action'
  /** submit answers with a redirect, the others with JSON. */
  expect?: 'json' | 'redirect'
  /** V1 api.php authenticates with the plain MD5 key in `key` instead of a sign. */
  auth?: 'sign' | 'key'
}

const SECRET_PARAMS = new Set(['key'])
const READ_ATTEMPTS = 3
const KEY_PLACEHOLDER = '{MD5 key}'

/** The parameters as they may be printed: the `key` of the V1 query redacted. */
export function shownParams(params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, SECRET_PARAMS.has(key) ? '(redacted)' : value]))
}


/** Builds and signs a request: pid, the fields (empty ones left out), timestamp (V2), sign and sign_type. */
export function buildEpayRequest(config: EpayConfig, spec: EpayCallSpec): EpayRequest {
  const url = endpointUrl(config.baseUrl, spec.path)
  if (!config.pid) throw new UsageError('no merchant number for the compatibility module: set pid (or mchNo) in the profile')
  const params: Record<string, string> = {pid: config.pid}
  for (const [key, value] of Object.entries(spec.fields)) if (value !== undefined && value !== '') params[key] = value
  if (spec.version === 'v1') {
    if (!config.md5Key) {
      throw new UsageError(NO_MD5_KEY)
    }
    if (spec.auth === 'key') return {version: 'v1', url, params: {...params, key: config.md5Key}}
    const form = config.md5KeyForm ?? 'direct'
    const text = epayStringToSign(params)
    const signed = {...params, sign: signMd5(params, config.md5Key, form), sign_type: 'MD5'}
    return {version: 'v1', url, params: signed, canonicalString: form === 'param' ? `${text}&key=${KEY_PLACEHOLDER}` : text + KEY_PLACEHOLDER}
  }
  if (!config.privateKey) throw new UsageError('no merchant private key: set one in the profile or pass --private-key')
  const now = (config.now ?? (() => new Date()))()
  params.timestamp = String(Math.floor(now.getTime() / 1000))
  const text = epayV2StringToSign(params)
  return {version: 'v2', url, params: {...params, sign: signRsa(params, config.privateKey), sign_type: 'RSA'}, canonicalString: text}
}

export async function epayCall(config: EpayConfig, spec: EpayCallSpec, options: {dryRun?: boolean} = {}): Promise<EpayResult> {
  // the services checked the input before calling: bad input starts nothing
  await config.connect?.()
  let request = buildEpayRequest(config, spec)
  if (request.canonicalString !== undefined) config.debug?.(`string to sign: ${request.canonicalString}`)
  if (options.dryRun) return {request}
  const attempts = spec.kind === 'read' ? READ_ATTEMPTS : 1
  const started = Date.now()
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await send(config, request)
      return {request, response: readAnswer(config, spec, request, answer)}
    } catch (error) {
      if (!(error instanceof TransportError)) throw error
      if (attempt >= attempts) throw countTries(error, attempt, started)
      config.debug?.(`retrying a read after: ${error.message}`)
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt))
      request = buildEpayRequest(config, spec)
    }
  }
}

async function send(config: EpayConfig, request: EpayRequest): Promise<{status: number; raw: string; location?: string}> {
  config.debug?.(`POST ${request.url} (form)\n${stringifyJson(shownParams(request.params), 2)}`)
  const response = await httpRequest(request.url, {method: 'POST', ...formBody(request.params), timeoutMs: config.timeoutMs})
  const location = typeof response.headers.location === 'string' ? response.headers.location : undefined
  config.debug?.(`HTTP ${response.status}${location ? `\nLocation: ${location}` : ''}\n${response.raw}`)
  return {status: response.status, raw: response.raw, location}
}

function readAnswer(config: EpayConfig, spec: EpayCallSpec, request: EpayRequest, answer: {status: number; raw: string; location?: string}): EpayResponse {
  const {status, raw} = answer
  if (spec.expect === 'redirect' && status >= 300 && status < 400 && answer.location) {
    return {httpStatus: status, raw, body: {}, location: new URL(answer.location, request.url).toString()}
  }
  let body: JsonObject
  try {
    body = parseJsonObject(raw)
  } catch (error) {
    // a number built to cost is refused as malformed, not retried as a garbled answer
    if (error instanceof JsonTooCostlyError) throw new SignatureError(`the answer from ${request.url} is refused: ${error.message}`)
    if (status !== 200) throw new TransportError(`HTTP ${status} from ${request.url}`, status >= 500)
    throw new TransportError(`unparseable answer from ${request.url}: ${(error as JsonSyntaxError).message}`, true)
  }
  if (status !== 200) {
    const message = resultMessage(body)
    throw new TransportError(`HTTP ${status} from ${request.url}${message ? `: ${message}` : ''}`, status >= 500)
  }
  const code = resultCode(body)
  if (Number.isNaN(code)) throw new TransportError(`answer from ${request.url} has no code: not a platform answer`)
  const success = request.version === 'v1' ? isV1Success(body) : code === 0
  const signed = typeof body.sign === 'string' && body.sign !== ''
  let verified: boolean | undefined
  if (request.version === 'v2' && config.verify) {
    if (!signed) {
      if (success) throw new SignatureError('the answer says success but carries no signature', body)
    } else {
      verifyV2Answer(config, body)
      verified = true
    }
  }
  if (!success) {
    const message = resultMessage(body)
    const error = new PlatformError(code, message, request.version === 'v2' ? signed : undefined, body)
    const echoed = serverStringFromMessage(message)
    // V1 says -1 for every failure: its message tells a refused signature; a clipped echo is compared over what it shows
    const ours = echoed && request.canonicalString !== undefined ? oursAsEchoed(request.canonicalString, echoed) : undefined
    if ((code === 20052 || request.version === 'v1') && echoed !== undefined && ours !== undefined && echoed.text !== ours) {
      const clip = echoed.fullLength === undefined ? '' : ` (the server's string is ${echoed.fullLength} characters: compared over the first ${echoed.text.length} it echoed)`
      error.hint = `the strings to sign differ${clip}:\n  ours:   ${ours}\n  server: ${echoed.text}`
    }
    throw error
  }
  if (spec.expect === 'redirect') throw new TransportError(`expected a redirect to the payment page from ${request.url}, got HTTP ${status}`)
  checkAbout(request, body)
  return {httpStatus: status, raw, body, verified, data: verified ? signedData(body) : body.data}
}

/**
 * V1's success: `code` written exactly 1 or "1", as the protocol's origin and the real platform
 * answer and V1 clients test it (the raw text, read losslessly). Another spelling of one
 * (1.0, 1e0, "01", 1.0000000000000001) is no success and no failure either: refused (exit 3).
 */
function isV1Success(body: JsonObject): boolean {
  const code = body.code
  if ((isLosslessNumber(code) && code.value === '1') || code === '1') return true
  if (resultCode(body) === 1) {
    throw new SignatureError(`the answer's code is written ${isLosslessNumber(code) ? code.value : JSON.stringify(code)}: V1 success is written 1 (or "1"), so this answer is neither a success nor a failure`, body)
  }
  return false
}

/** Which order (or refund) an answer names, flat and in `data`. */
const SUBJECT_FIELDS: [flat: string, data: string][] = [
  ['out_trade_no', 'bizOrderNo'],
  ['out_refund_no', 'bizRefundNo'],
]

const textOf = (value: JsonValue | undefined): string | undefined =>
  value === undefined || value === null || value === '' ? undefined : isLosslessNumber(value) ? value.value : typeof value === 'object' ? JSON.stringify(value) : String(value)

/** Yuan written out as whole cents, exactly (`1.5`, `1.50` and `1.500` alike); undefined for anything else. */
function exactCents(yuan: string): bigint | undefined {
  const match = /^(\d{1,15})(?:\.(\d{1,20}))?$/.exec(yuan)
  if (!match || /[1-9]/.test((match[2] ?? '').slice(2))) return undefined
  return BigInt(match[1]) * 100n + BigInt((match[2] ?? '').slice(0, 2).padEnd(2, '0'))
}

/**
 * A success about another order, refund or amount than asked (a replayed or misrouted answer)
 * is not believed, as /unipay/* answers are not (exit 3): out_trade_no and out_refund_no as
 * sent, money compared in cents, exactly, flat and in `data` (amount in cents there).
 */
function checkAbout(request: EpayRequest, body: JsonObject): void {
  const data = body.data !== null && typeof body.data === 'object' && !Array.isArray(body.data) && !isLosslessNumber(body.data) ? (body.data) : {}
  for (const [flat, inData] of SUBJECT_FIELDS) {
    const asked = request.params[flat]
    if (asked === undefined) continue
    for (const [where, answered] of [[flat, textOf(body[flat])], [`data.${inData}`, textOf(data[inData])]]) {
      if (answered !== undefined && answered !== asked) throw new SignatureError(`the answer is about ${where} ${answered}, not the ${asked} we asked for`, body)
    }
  }
  const askedMoney = request.params.money
  if (askedMoney === undefined) return
  const cents = exactCents(askedMoney)
  const money = textOf(body.money)
  if (money !== undefined && exactCents(money) !== cents) {
    throw new SignatureError(`the answer is about money ${money}, not the ${askedMoney} yuan we asked for: query it before relying on it`, body)
  }
  const amount = textOf(data.amount)
  if (amount !== undefined && (!/^\d{1,20}$/.test(amount) || BigInt(amount) !== cents)) {
    throw new SignatureError(`the answer is about data.amount ${amount} cents, not the ${askedMoney} yuan we asked for: query it before relying on it`, body)
  }
}

/** The part of `data` that signed flat fields vouch for (checked by verifyV2Answer). */
function signedData(body: JsonObject): JsonValue {
  const data = body.data
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data ?? null
  const flat = scalarFields(body)
  const vouched = new Set(AGREEMENT.filter(([, flatKey]) => flat[flatKey] !== undefined).map(([dataKey]) => dataKey))
  return Object.fromEntries<JsonValue>(Object.entries(data).filter(([key]) => vouched.has(key)))
}

/** V2 answer: RSA over the flat scalar fields, sign_type RSA, a fresh timestamp, and data agreeing with the signed fields. */
export function verifyV2Answer(config: Pick<EpayConfig, 'platformKey' | 'now'>, body: JsonObject): void {
  if (!config.platformKey) throw new SignatureError('no platform public key to verify the answer with: set one in the profile, or pass --no-verify', body)
  const flat = scalarFields(body)
  if (flat.sign_type !== 'RSA') throw new SignatureError(`the answer's sign_type is "${flat.sign_type ?? ''}", not RSA`, body)
  // one signature, one spelling (protocol-notes section 1)
  const notCanonical = canonicalBase64Problem(flat.sign ?? '')
  if (notCanonical) throw new SignatureError(`the answer's sign is not canonical Base64: it ${notCanonical}`, body)
  if (!verifyRsa(flat, flat.sign, config.platformKey)) {
    const error = new SignatureError(NOT_VERIFIED, body)
    error.hint = `string to sign by the rule: ${epayV2StringToSign(flat)}`
    throw error
  }
  const timestamp = flat.timestamp
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) throw new SignatureError('the answer carries no timestamp (Unix seconds) in its signed fields', body)
  const now = Math.floor((config.now ?? (() => new Date()))().getTime() / 1000)
  const offBy = Number(timestamp) - now
  if (Math.abs(offBy) > EPAY_TIMESTAMP_WINDOW_SECONDS) {
    throw new SignatureError(
      `the answer's timestamp ${timestamp} is ${Math.abs(offBy)} s ${offBy < 0 ? 'behind' : 'ahead of'} our clock (at most ${EPAY_TIMESTAMP_WINDOW_SECONDS} s allowed): a replayed answer, or a clock is wrong`,
      body,
    )
  }
  const disagreement = dataDisagreement(body, flat)
  if (disagreement) {
    throw new SignatureError(`${disagreement}: data is not covered by the signature, so the answer cannot be trusted`, body)
  }
}

/** data fields that have a signed flat counterpart, and how they must agree. */
const AGREEMENT: [dataKey: string, flatKey: string, agree: (data: string, flat: string) => boolean][] = [
  ['orderNo', 'trade_no', (a, b) => a === b],
  ['orderId', 'order_id', (a, b) => a === b],
  ['bizOrderNo', 'out_trade_no', (a, b) => a === b],
  ['refundNo', 'refund_no', (a, b) => a === b],
  ['bizRefundNo', 'out_refund_no', (a, b) => a === b],
  ['payBody', 'pay_info', (a, b) => a === b],
  ['payBodyType', 'pay_type', (a, b) => (PAY_TYPE_OF_BODY[a] ?? a) === b],
  ['payTime', 'endtime', (a, b) => a === b],
  ['finishTime', 'endtime', (a, b) => a === b],
  ['amount', 'money', (a, b) => {
    try {
      return String(epayMoneyToCents(b)) === a
    } catch {
      return false
    }
  }],
  // An order's status is 1/0 in the flat fields (paid or not), a refund's or a closed order's a word.
  ['status', 'status', (a, b) => (b === '1' ? a === 'success' : b === '0' ? a !== 'success' : a === b)],
]

function dataDisagreement(body: JsonObject, flat: Record<string, string>): string | undefined {
  const data = toPlain(body.data)
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined
  for (const [dataKey, flatKey, agree] of AGREEMENT) {
    const value = (data as Record<string, unknown>)[dataKey]
    if (value === undefined || value === null || flat[flatKey] === undefined) continue
    if (!agree(String(value), flat[flatKey])) return `the answer's data.${dataKey} (${String(value)}) disagrees with its signed ${flatKey} (${flat[flatKey]})`
  }
  return undefined
}
