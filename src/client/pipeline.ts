// The one request pipeline: common fields, validation, signing, sending, verification of the
// raw answer. Reads are retried on transport failure (re-signed, fresh reqId); creates never are.
import {randomBytes, type KeyObject} from 'node:crypto'
import {canonicalString} from '../protocol/canonical.js'
import {compareStrings} from '../protocol/diagnose.js'
import {endpointUrl, postJson} from './http.js'
import {oursAsEchoed, readEnvelopeAsync, resultCode, resultMessage, serverStringFromMessage, type EchoedString} from '../protocol/envelope.js'
import type {CallEndpoint} from '../protocol/endpoints.js'
import {unsendableFields} from '../protocol/field-rules.js'
import {foreignInputProblem} from '../protocol/foreign-input.js'
import {isLosslessNumber, JsonTooCostlyError, JsonSyntaxError, PROTO_KEY_REFUSED, stringifyJson, toPlain, type JsonObject} from '../protocol/json.js'
import {signStringAsync} from '../protocol/signature.js'
import {compactGmt8, formatGmt8, parseGmt8} from '../protocol/time.js'
import {NOT_VERIFIED, PlatformError, SignatureError, TransportError, UsageError} from '../errors.js'

export interface ClientConfig {
  baseUrl: string
  mchNo?: string
  appId?: string
  /** --channel-mch-no: signed into every call of the run (direct routing); never the profile's. */
  channelMchNo?: string
  privateKey?: KeyObject
  platformKey?: KeyObject
  /** false only with --no-verify. */
  verify: boolean
  timeoutMs?: number
  /** Keep-alive agents for many calls in a row (batches). */
  agent?: {http?: import('node:http').Agent; https?: import('node:https').Agent}
  /** Receives --debug lines (already free of secrets). */
  debug?: (line: string) => void
  now?: () => Date
  /**
   * Set while the platform waits to be started (the local sandbox, on the first call): it fills
   * in the address, merchant and keys. The fields are checked before, so bad input starts nothing.
   */
  connect?: () => Promise<void>
}

// Stands for the merchant number while the local sandbox that knows it is not started yet.
const MCH_NO_NOT_YET_KNOWN = 'M0'

/**
 * How a body is built: checked against the endpoint's rules (the default), or `unchecked`, sent as
 * given (`api --unchecked`, to a sandbox only): no rule applied, and a common field given (a stale
 * reqTime, a reused reqId) sent instead of a fresh one. It is signed either way.
 */
interface BodyOptions {
  unchecked?: boolean
}

/** Checks the fields, then starts the platform when it waits for its first call. */
export async function connectChecked(config: ClientConfig, endpoint: Pick<CallEndpoint, 'check' | 'defaults'>, fields: Record<string, unknown>, options: BodyOptions = {}): Promise<void> {
  if (!config.connect) return
  requestBody({...config, mchNo: config.mchNo ?? MCH_NO_NOT_YET_KNOWN}, endpoint, fields, options)
  await config.connect()
}

export interface SignedRequest {
  url: string
  body: Record<string, unknown>
  canonicalString: string
}

export interface CallResult<T = unknown> {
  request: SignedRequest
  /** Undefined for a dry run. */
  response?: {
    httpStatus: number
    raw: string
    body: JsonObject
    /** true verified, undefined when verification was switched off. */
    verified?: boolean
    /**
     * `body.data` made plain (see toPlain; null when absent), typed as the answer the spec
     * describes (protocol/answers.ts). Not checked at run time: the signature says who answered.
     */
    data: T
  }
}

const READ_ATTEMPTS = 3
/** How far an answer's resTime may be from our clock, either way (the platform's reqTime window). */
const RES_TIME_WINDOW_MS = 300_000
/** The numbers that say which order, refund, split or transfer a request and its answer are about. */
const SUBJECT_FIELDS = ['mchNo', 'orderNo', 'bizOrderNo', 'outOrderNo', 'refundNo', 'bizRefundNo', 'allocNo', 'bizAllocNo', 'transferNo', 'bizTransferNo']
/**
 * An orderNo asked may be any number of the order (notes §3 and §4: its trade number, or its
 * gateway order number or that order's trade number): the answer names it by one of these.
 */
const SAME_ORDER: Record<string, string[]> = {orderNo: ['orderNo', 'tradeNo']}

function newReqId(now: Date, random: string): string {
  return `R${compactGmt8(now)}${random}`
}

/** Builds and signs a request: defaults, fields, then the common fields, all validated. */
export async function buildRequest(config: ClientConfig, endpoint: CallEndpoint, fields: Record<string, unknown>, options: BodyOptions = {}): Promise<SignedRequest> {
  const body = requestBody(config, endpoint, fields, options)
  const privateKey = merchantKey(config)
  const text = canonicalString(body)
  // on the thread pool: a batch run keeps sending and verifying while requests are signed
  body.sign = await signStringAsync(text, privateKey)
  return {url: endpointUrl(config.baseUrl, endpoint.path), body, canonicalString: text}
}

/** The key every signed call needs (a batch asks for it before it writes its journal). */
export function merchantKey(config: ClientConfig): KeyObject {
  if (!config.privateKey) throw new UsageError('no merchant private key: set one in the profile or pass --private-key')
  return config.privateKey
}

/** Defaults, fields, then fresh common fields; checked against the endpoint's rules. Shared by the unsigned calls. */
export function requestBody(config: ClientConfig, endpoint: Pick<CallEndpoint, 'check' | 'defaults'>, fields: Record<string, unknown>, {unchecked = false}: BodyOptions = {}): Record<string, unknown> {
  const now = (config.now ?? (() => new Date()))()
  const body: Record<string, unknown> = {...endpoint.defaults}
  for (const key of Object.keys(fields)) {
    // assigned, it would become the body's prototype: the key dropped, its fields sent unseen
    if (key === '__proto__') throw new UsageError('invalid input', [{field: key, message: PROTO_KEY_REFUSED}])
    if (fields[key] !== undefined) body[key] = fields[key]
  }
  // one draw of randomness for both: the reqId's 12 hex digits and the nonceStr's 32
  const random = randomBytes(22).toString('hex')
  const common: Record<string, unknown> = {
    mchNo: config.mchNo,
    appId: config.appId || undefined,
    // a transfer names its channel merchant itself; another call only when --channel-mch-no asks
    channelMchNo: body.channelMchNo ?? (config.channelMchNo || undefined),
    reqId: newReqId(now, random.slice(0, 12)),
    nonceStr: random.slice(12),
    reqTime: formatGmt8(now),
  }
  for (const [key, value] of Object.entries(common)) if (!unchecked || fields[key] === undefined) body[key] = value
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key]
  if (unchecked) return body
  const problems = [...unsendableFields(body, ''), ...endpoint.check(toPlain(body) as Record<string, unknown>)]
  if (problems.length > 0) throw new UsageError('invalid input', problems)
  return body
}

/** The user waited for every try: the last failure says how many there were and how long they took. */
export function countTries(error: TransportError, tries: number, startedMs: number): TransportError {
  error.message += `, ${tries} ${tries === 1 ? 'try' : 'tries'}, ${Math.round((Date.now() - startedMs) / 1000)} s`
  return error
}

export async function call<T = unknown>(
  config: ClientConfig,
  endpoint: CallEndpoint,
  fields: Record<string, unknown>,
  options: BodyOptions & {dryRun?: boolean} = {},
): Promise<CallResult<T>> {
  await connectChecked(config, endpoint, fields, options)
  let request = await buildRequest(config, endpoint, fields, options)
  config.debug?.(`string to sign: ${request.canonicalString}`)
  if (options.dryRun) return {request}
  const attempts = endpoint.kind === 'read' ? READ_ATTEMPTS : 1
  const started = Date.now()
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await send(config, request)
      return {request, response: await verifyResponse<T>(config, endpoint, request, response)}
    } catch (error) {
      // Reads are safe to repeat (re-signed, fresh reqId) after a transport failure, a 5xx or
      // a body that did not parse; anything that reached a verdict is final.
      if (!(error instanceof TransportError)) throw error
      if (attempt >= attempts) throw countTries(error, attempt, started)
      config.debug?.(`retrying a read after: ${error.message}`)
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt))
      request = await buildRequest(config, endpoint, fields, options)
    }
  }
}

async function send(config: ClientConfig, request: SignedRequest): Promise<{status: number; raw: string}> {
  const payload = stringifyJson(request.body)
  config.debug?.(`POST ${request.url}\n${payload}`)
  const response = await postJson(request.url, payload, config)
  config.debug?.(`HTTP ${response.status}\n${response.raw}`)
  return response
}

async function verifyResponse<T>(config: ClientConfig, endpoint: CallEndpoint, request: SignedRequest, response: {status: number; raw: string}): Promise<NonNullable<CallResult<T>['response']>> {
  let read
  try {
    // on the thread pool, as requests are signed: a batch run keeps sending while answers are verified
    read = await readEnvelopeAsync(response.raw, config.platformKey)
  } catch (error) {
    // not a garbled answer to retry: a number built to cost, refused as the sandbox refuses it (section 1)
    if (error instanceof JsonTooCostlyError) throw new SignatureError(`the answer from ${request.url} is refused: ${error.message}`)
    if (response.status !== 200) throw new TransportError(`HTTP ${response.status} from ${request.url}`, response.status >= 500)
    throw new TransportError(`unparseable answer from ${request.url}: ${(error as JsonSyntaxError).message}`, true)
  }
  const {body} = read
  // before anything is read from it: keys and strings that would make its string to sign ambiguous
  const foreign = foreignInputProblem(body)
  if (foreign) throw new SignatureError(`the answer from ${request.url} is refused: ${foreign.field}: ${foreign.message}`, body)
  const code = resultCode(body)
  if (response.status !== 200) {
    const message = resultMessage(body)
    throw new TransportError(`HTTP ${response.status} from ${request.url}${message ? `: ${message}` : ''}`, response.status >= 500)
  }
  if (Number.isNaN(code)) throw new TransportError(`answer from ${request.url} has no code: not a platform answer`)
  const verified = config.verify ? read.verified : undefined
  if (config.verify) {
    if (read.verified === false) {
      throw new SignatureError(NOT_VERIFIED, body)
    }
    if (read.verified === undefined && read.signature && !config.platformKey) {
      throw new SignatureError('no platform public key to verify the answer with: set one in the profile, or pass --no-verify', body)
    }
    if (read.verified === undefined && code === 0) {
      throw new SignatureError('the answer says success but carries no signature', body)
    }
    if (read.verified) checkAbout(config, request, body, code === 0)
  }
  const data = body.data
  // every endpoint of the catalog answers a data object but close (protocol-notes section 1)
  if (code === 0 && endpoint.answerData === undefined && (data === undefined || data === null || typeof data !== 'object' || Array.isArray(data) || isLosslessNumber(data))) {
    throw new SignatureError(
      `the answer says success but its data is ${data === undefined ? 'missing' : data === null ? 'null' : 'not an object'}: the platform answers ${endpoint.path} with a data object, so this is not a success`,
      body,
    )
  }
  if (code !== 0) {
    const error = new PlatformError(code, resultMessage(body), read.signature !== undefined, body)
    if (code === 20052) {
      const echoed = serverStringFromMessage(resultMessage(body))
      if (echoed !== undefined) error.hint = compareHint(request.canonicalString, echoed)
    }
    throw error
  }
  return {httpStatus: response.status, raw: response.raw, body, verified, data: (toPlain(body.data) ?? null) as T}
}

/**
 * A correctly signed answer can still be someone else's: a replayed old one, or one about
 * another order. It must echo our reqId, be recent, and name the order we asked about.
 */
function checkAbout(config: ClientConfig, request: SignedRequest, body: JsonObject, success: boolean): void {
  const echoed = typeof body.reqId === 'string' && body.reqId !== '' ? body.reqId : undefined
  // a success must echo it; an error may be answered before the platform read our reqId
  if (echoed === undefined ? success : echoed !== request.body.reqId) {
    throw new SignatureError(`the answer echoes reqId ${echoed ?? '(none)'}, not ours (${String(request.body.reqId)}): it is not the answer to this request`, body)
  }
  const resTime = body.resTime
  if (success || (resTime !== undefined && resTime !== null)) {
    const at = typeof resTime === 'string' ? parseGmt8(resTime) : undefined
    const now = (config.now ?? (() => new Date()))()
    if (!at) throw new SignatureError(`the answer's resTime ${resTime === undefined ? '(none)' : JSON.stringify(resTime)} is not a time: it cannot be checked for freshness`, body)
    const drift = Math.round((at.getTime() - now.getTime()) / 1000)
    if (Math.abs(drift) * 1000 > RES_TIME_WINDOW_MS) {
      throw new SignatureError(
        `the answer's resTime ${String(resTime)} is ${Math.abs(drift)} s ${drift < 0 ? 'old' : 'in the future'} (at most ${RES_TIME_WINDOW_MS / 1000} s either way): a replayed answer, or a clock to set right`,
        body,
      )
    }
  }
  const data = body.data
  if (!data || typeof data !== 'object' || Array.isArray(data)) return
  for (const field of SUBJECT_FIELDS) {
    const asked = request.body[field]
    if (typeof asked !== 'string' || asked === '') continue
    const named = (SAME_ORDER[field] ?? [field]).flatMap((name): [string, string][] => {
      const value = (data as JsonObject)[name]
      return value === undefined || value === null || value === '' ? [] : [[name, String(value)]]
    })
    if (named.length > 0 && !named.some(([, value]) => value === asked)) {
      throw new SignatureError(`the answer is about ${named.map(([name, value]) => `${name} ${value}`).join(', ')}, not the ${asked} we asked for`, body)
    }
  }
  // a create answered for another amount (a refund of 1 cent answered as 100): not the one we asked
  // for; taking it would record money that did not move, so nothing is believed (query it to see)
  const askedAmount = request.body.amount
  const answeredAmount = toPlain((data as JsonObject).amount)
  if (typeof askedAmount === 'number' && answeredAmount !== undefined && answeredAmount !== null && String(answeredAmount) !== String(askedAmount)) {
    throw new SignatureError(`the answer is about an amount of ${String(answeredAmount)} cents, not the ${askedAmount} we asked for: query it before relying on it`, body)
  }
}

function compareHint(whole: string, echoed: EchoedString): string {
  // a clipped echo (past 8 KiB) is compared over what it shows
  const ours = oursAsEchoed(whole, echoed)
  const theirs = echoed.text
  const clip = echoed.fullLength === undefined ? '' : ` (the server's string is ${echoed.fullLength} characters, ours ${whole.length}: compared over the first ${theirs.length} it echoed)`
  if (ours === theirs && clip) return `the strings to sign agree as far as the server echoed its own${clip}`
  if (ours === theirs) {
    return 'our string to sign equals the server\'s: the public key registered for this merchant does not match our private key'
  }
  const {differences, orderDiffers} = compareStrings(ours, theirs)
  const lines = differences.map(({key, ours: a, theirs: b}) =>
    a === undefined ? `  server has ${key}=${b}, we do not` : b === undefined ? `  we sent ${key}=${a}, the server does not sign it` : `  ${key}: ours "${a}", server "${b}"`,
  )
  if (orderDiffers) lines.push('  same pairs in another order')
  return `the strings to sign differ${clip}:\n${lines.join('\n')}\n  ours:   ${ours}\n  server: ${theirs}`
}
