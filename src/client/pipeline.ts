// The one request pipeline: common fields, validation, signing, sending, verification of the
// raw answer. Reads are retried on transport failure (re-signed, fresh reqId); creates never are.
import {randomBytes, type KeyObject} from 'node:crypto'
import {canonicalString} from '../protocol/canonical.js'
import {compareStrings} from '../protocol/diagnose.js'
import {endpointUrl, postJson} from './http.js'
import {readEnvelope, resultCode, resultMessage, serverStringFromMessage} from '../protocol/envelope.js'
import type {CallEndpoint} from '../protocol/field-rules.js'
import {JsonSyntaxError, stringifyJson, toPlain, type JsonObject} from '../protocol/json.js'
import {signString} from '../protocol/signature.js'
import {compactGmt8, formatGmt8} from '../protocol/time.js'
import {PlatformError, SignatureError, TransportError, UsageError} from '../errors.js'

export interface ClientConfig {
  baseUrl: string
  mchNo?: string
  appId?: string
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
}

export interface SignedRequest {
  url: string
  body: Record<string, unknown>
  canonicalString: string
}

export interface CallResult {
  request: SignedRequest
  /** Undefined for a dry run. */
  response?: {
    httpStatus: number
    raw: string
    body: JsonObject
    /** true verified, undefined when verification was switched off. */
    verified?: boolean
  }
}

const READ_ATTEMPTS = 3

export function newReqId(now: Date): string {
  return `R${compactGmt8(now)}${randomBytes(6).toString('hex')}`
}

/** Builds and signs a request: defaults, fields, then the common fields, all validated. */
export function buildRequest(config: ClientConfig, endpoint: CallEndpoint, fields: Record<string, unknown>): SignedRequest {
  const body = requestBody(config, endpoint, fields)
  if (!config.privateKey) throw new UsageError('no merchant private key: set one in the profile or pass --private-key')
  const text = canonicalString(body)
  body.sign = signString(text, config.privateKey)
  return {url: endpointUrl(config.baseUrl, endpoint.path), body, canonicalString: text}
}

/** Defaults, fields, then fresh common fields; checked against the endpoint's rules. Shared by the unsigned calls. */
export function requestBody(config: ClientConfig, endpoint: Pick<CallEndpoint, 'check' | 'defaults'>, fields: Record<string, unknown>): Record<string, unknown> {
  const now = (config.now ?? (() => new Date()))()
  const body: Record<string, unknown> = {...endpoint.defaults}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value
  Object.assign(body, {
    mchNo: config.mchNo,
    appId: config.appId || undefined,
    // a transfer names its channel merchant itself; otherwise the profile's applies
    channelMchNo: body.channelMchNo ?? (config.channelMchNo || undefined),
    reqId: newReqId(now),
    nonceStr: randomBytes(16).toString('hex'),
    reqTime: formatGmt8(now),
  })
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key]
  const problems = endpoint.check(toPlain(body) as Record<string, unknown>)
  if (problems.length > 0) throw new UsageError('invalid input', problems)
  return body
}

export async function call(
  config: ClientConfig,
  endpoint: CallEndpoint,
  fields: Record<string, unknown>,
  options: {dryRun?: boolean} = {},
): Promise<CallResult> {
  let request = buildRequest(config, endpoint, fields)
  config.debug?.(`string to sign: ${request.canonicalString}`)
  if (options.dryRun) return {request}
  const attempts = endpoint.kind === 'read' ? READ_ATTEMPTS : 1
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await send(config, request)
      return {request, response: verifyResponse(config, request, response)}
    } catch (error) {
      // Reads are safe to repeat (re-signed, fresh reqId) after a transport failure, a 5xx or
      // a body that did not parse; anything that reached a verdict is final.
      if (!(error instanceof TransportError) || attempt >= attempts) throw error
      config.debug?.(`retrying a read after: ${error.message}`)
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt))
      request = buildRequest(config, endpoint, fields)
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

function verifyResponse(config: ClientConfig, request: SignedRequest, response: {status: number; raw: string}) {
  let read
  try {
    read = readEnvelope(response.raw, config.platformKey)
  } catch (error) {
    if (response.status !== 200) throw new TransportError(`HTTP ${response.status} from ${request.url}`, response.status >= 500)
    throw new TransportError(`unparseable answer from ${request.url}: ${(error as JsonSyntaxError).message}`, true)
  }
  const {body} = read
  const code = resultCode(body)
  if (response.status !== 200) {
    const message = resultMessage(body)
    throw new TransportError(`HTTP ${response.status} from ${request.url}${message ? `: ${message}` : ''}`, response.status >= 500)
  }
  if (Number.isNaN(code)) throw new TransportError(`answer from ${request.url} has no code: not a platform answer`)
  const verified = config.verify ? read.verified : undefined
  if (config.verify) {
    if (read.verified === false) {
      throw new SignatureError('the answer\'s signature does not verify with the platform public key: it was altered or signed with another key', body)
    }
    if (read.verified === undefined && read.signature && !config.platformKey) {
      throw new SignatureError('no platform public key to verify the answer with: set one in the profile, or pass --no-verify', body)
    }
    if (read.verified === undefined && code === 0) {
      throw new SignatureError('the answer says success but carries no signature', body)
    }
    const echoed = body.reqId
    if (read.verified && typeof echoed === 'string' && echoed !== '' && echoed !== request.body.reqId) {
      throw new SignatureError(`the answer echoes reqId ${echoed}, not ours (${String(request.body.reqId)})`, body)
    }
  }
  if (code !== 0) {
    const error = new PlatformError(code, resultMessage(body), read.signature !== undefined, body)
    if (code === 20052) {
      const serverString = serverStringFromMessage(resultMessage(body))
      if (serverString !== undefined) error.hint = compareHint(request.canonicalString, serverString)
    }
    throw error
  }
  return {httpStatus: response.status, raw: response.raw, body, verified}
}

function compareHint(ours: string, theirs: string): string {
  if (ours === theirs) {
    return 'our string to sign equals the server\'s: the public key registered for this merchant does not match our private key'
  }
  const {differences, orderDiffers} = compareStrings(ours, theirs)
  const lines = differences.map(({key, ours: a, theirs: b}) =>
    a === undefined ? `  server has ${key}=${b}, we do not` : b === undefined ? `  we sent ${key}=${a}, the server does not sign it` : `  ${key}: ours "${a}", server "${b}"`,
  )
  if (orderDiffers) lines.push('  same pairs in another order')
  return `the strings to sign differ:\n${lines.join('\n')}\n  ours:   ${ours}\n  server: ${theirs}`
}
