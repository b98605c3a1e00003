// The auth-code endpoints (spec: "neither verifies a signature"): the common fields without
// `sign`, answered with an unsigned Result {code, message, data}. Never resent: an exchange may
// spend a single-use authToken.
import {PlatformError, SignatureError, TransportError} from '../errors.js'
import type {UnsignedEndpoint} from '../protocol/endpoints.js'
import {resultCode, resultMessage} from '../protocol/envelope.js'
import {JsonNumberTooLongError, JsonSyntaxError, parseJsonObject, stringifyJson, type JsonObject} from '../protocol/json.js'
import {endpointUrl, postJson} from './http.js'
import {connectChecked, requestBody, type ClientConfig} from './pipeline.js'

export interface UnsignedResult {
  request: {url: string; body: Record<string, unknown>}
  /** Undefined for a dry run. */
  response?: {httpStatus: number; raw: string; body: JsonObject}
}

/** The wallet's access token is the payer's credential: never in --debug output. */
const redact = (text: string) => text.replace(/("accessToken"\s*:\s*")[^"]*"/g, '$1(redacted)"')

export function buildUnsignedRequest(config: ClientConfig, endpoint: UnsignedEndpoint, fields: Record<string, unknown>): UnsignedResult['request'] {
  return {url: endpointUrl(config.baseUrl, endpoint.path), body: requestBody(config, endpoint, fields)}
}

export async function unsignedCall(
  config: ClientConfig,
  endpoint: UnsignedEndpoint,
  fields: Record<string, unknown>,
  options: {dryRun?: boolean} = {},
): Promise<UnsignedResult> {
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
    if (error instanceof JsonNumberTooLongError) throw new SignatureError(`the answer from ${endpoint.path} is refused: ${error.message}`)
    throw new TransportError(`HTTP ${status} from ${endpoint.path}: not JSON (${(error as JsonSyntaxError).message})`)
  }
  if (status !== 200) throw new TransportError(`HTTP ${status} from ${endpoint.path}${resultMessage(body) ? `: ${resultMessage(body)}` : ''}`)
  const code = resultCode(body)
  if (Number.isNaN(code)) throw new TransportError(`answer from ${endpoint.path} has no code: not a platform answer`)
  if (code !== 0) throw new PlatformError(code, resultMessage(body), undefined, body)
  return {request, response: {httpStatus: status, raw, body}}
}
