// The auth-code endpoints (spec: "neither verifies a signature"): the common fields without
// `sign`, answered with an unsigned Result {code, message, data}. Never resent: an exchange may
// spend a single-use authToken.
import {postJson} from './http.js'
import {randomBytes} from 'node:crypto'
import {PlatformError, TransportError, UsageError} from '../errors.js'
import type {UnsignedEndpoint} from '../protocol/endpoints.js'
import {resultCode, resultMessage} from '../protocol/envelope.js'
import {JsonSyntaxError, parseJsonObject, stringifyJson, toPlain, type JsonObject} from '../protocol/json.js'
import {checkFields} from '../protocol/schemas.js'
import {formatGmt8} from '../protocol/time.js'
import {newReqId, type ClientConfig} from './pipeline.js'

export interface UnsignedResult {
  request: {url: string; body: Record<string, unknown>}
  /** Undefined for a dry run. */
  response?: {httpStatus: number; raw: string; body: JsonObject}
}

/** The wallet's access token is the payer's credential: never in --debug output. */
const redact = (text: string) => text.replace(/("accessToken"\s*:\s*")[^"]*"/g, '$1(redacted)"')

export function buildUnsignedRequest(config: ClientConfig, endpoint: UnsignedEndpoint, fields: Record<string, unknown>): UnsignedResult['request'] {
  const now = (config.now ?? (() => new Date()))()
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value
  Object.assign(body, {
    mchNo: config.mchNo,
    appId: config.appId || undefined,
    channelMchNo: config.channelMchNo || undefined,
    reqId: newReqId(now),
    nonceStr: randomBytes(16).toString('hex'),
    reqTime: formatGmt8(now),
  })
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key]
  const problems = checkFields(endpoint.fields, toPlain(body))
  if (problems.length > 0) throw new UsageError('invalid input', problems)
  const base = config.baseUrl.endsWith('/') ? config.baseUrl : `${config.baseUrl}/`
  return {url: new URL(endpoint.path, base).toString(), body}
}

export async function unsignedCall(
  config: ClientConfig,
  endpoint: UnsignedEndpoint,
  fields: Record<string, unknown>,
  options: {dryRun?: boolean} = {},
): Promise<UnsignedResult> {
  const request = buildUnsignedRequest(config, endpoint, fields)
  if (options.dryRun) return {request}
  const payload = stringifyJson(request.body)
  config.debug?.(`POST ${request.url} (unsigned)\n${redact(payload)}`)
  const {status, raw} = await postJson(request.url, payload, config)
  config.debug?.(`HTTP ${status}\n${redact(raw)}`)
  let body: JsonObject
  try {
    body = parseJsonObject(raw)
  } catch (error) {
    throw new TransportError(`HTTP ${status} from ${endpoint.path}: not JSON (${(error as JsonSyntaxError).message})`)
  }
  if (status !== 200) throw new TransportError(`HTTP ${status} from ${endpoint.path}${resultMessage(body) ? `: ${resultMessage(body)}` : ''}`)
  const code = resultCode(body)
  if (Number.isNaN(code)) throw new TransportError(`answer from ${endpoint.path} has no code: not a platform answer`)
  if (code !== 0) throw new PlatformError(code, resultMessage(body), undefined, body)
  return {request, response: {httpStatus: status, raw, body}}
}
