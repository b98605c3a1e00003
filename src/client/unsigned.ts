// The auth-code endpoints (spec: "neither verifies a signature"): the common fields without
// `sign`, answered with an unsigned Result {code, message, data}. Never resent: an exchange may
// spend a single-use authToken.
import {PlatformError, SignatureError, TransportError} from '../errors.js'
import type {UnsignedEndpoint} from '../protocol/endpoints.js'
import {resultCode, resultMessage} from '../protocol/envelope.js'
import {JsonTooCostlyError, JsonSyntaxError, parseJsonObject, stringifyJson, toPlain, type JsonObject} from '../protocol/json.js'
import {endpointUrl, postJson} from './http.js'
import {connectChecked, requestBody, type ClientConfig} from './pipeline.js'

export interface UnsignedRequest {
  url: string
  body: Record<string, unknown>
}

/** As a signed call's CallResult, without a string to sign or a verdict on a signature. */
export interface UnsignedResult<T = unknown> {
  request: UnsignedRequest
  /** Undefined for a dry run. `data`: `body.data` made plain (null when absent), typed as the spec's answer. */
  response?: {httpStatus: number; raw: string; body: JsonObject; data: T}
}

/** The wallet's access token is the payer's credential: never in --debug output. */
const redact = (text: string) => text.replace(/("accessToken"\s*:\s*")[^"]*"/g, '$1(redacted)"')

export function buildUnsignedRequest(config: ClientConfig, endpoint: UnsignedEndpoint, fields: Record<string, unknown>): UnsignedRequest {
  return {url: endpointUrl(config.baseUrl, endpoint.path), body: requestBody(config, endpoint, fields)}
}

export async function unsignedCall<T = unknown>(
  config: ClientConfig,
  endpoint: UnsignedEndpoint,
  fields: Record<string, unknown>,
  options: {dryRun?: boolean} = {},
): Promise<UnsignedResult<T>> {
  await connectChecked(config, endpoint, fields)
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
    if (error instanceof JsonTooCostlyError) throw new SignatureError(`the answer from ${endpoint.path} is refused: ${error.message}`)
    throw new TransportError(`HTTP ${status} from ${endpoint.path}: not JSON (${(error as JsonSyntaxError).message})`)
  }
  if (status !== 200) throw new TransportError(`HTTP ${status} from ${endpoint.path}${resultMessage(body) ? `: ${resultMessage(body)}` : ''}`)
  const code = resultCode(body)
  if (Number.isNaN(code)) throw new TransportError(`answer from ${endpoint.path} has no code: not a platform answer`)
  if (code !== 0) throw new PlatformError(code, resultMessage(body), undefined, body)
  return {request, response: {httpStatus: status, raw, body, data: (toPlain(body.data) ?? null) as T}}
}
