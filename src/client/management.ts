// The management API: unsigned Result {code, message, data} answers, a session token in the
// Accesstoken header (never logged), 401 when it is missing or expired.
import {PlatformError, SignatureError, TransportError} from '../errors.js'
import {endpointUrl, formBody, httpRequest} from './http.js'
import {JsonTooCostlyError, JsonSyntaxError, parseJsonObject, type JsonObject} from '../protocol/json.js'
import {resultCode, resultMessage} from '../protocol/envelope.js'

export interface ManagementConfig {
  baseUrl: string
  token?: string
  debug?: (line: string) => void
  timeoutMs?: number
}

const GET_ATTEMPTS = 3

export class SessionError extends PlatformError {
  constructor(message: string) {
    super(401, message, undefined)
    this.hint = 'log in with: unipay mch login --account ACCOUNT'
  }
}

export async function managementCall(
  config: ManagementConfig,
  request: {method: 'GET' | 'POST'; path: string; query?: Record<string, string | undefined>; form?: Record<string, string>; auth?: boolean},
): Promise<JsonObject> {
  const url = new URL(endpointUrl(config.baseUrl, request.path))
  for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(key, value)
  if (request.auth && !config.token) throw new SessionError('not logged in to the management API')
  config.debug?.(`${request.method} ${url}${request.auth ? '\nAccesstoken: (redacted)' : ''}${request.form ? `\nform fields: ${Object.keys(request.form).join(', ')} (values redacted)` : ''}`)
  const form = request.form ? formBody(request.form) : undefined
  // reads may be repeated after a transport failure; a POST never is
  const attempts = request.method === 'GET' ? GET_ATTEMPTS : 1
  let answer
  for (let attempt = 1; ; attempt++) {
    try {
      // never follows a redirect (httpRequest does not): the Accesstoken header would go along to another host
      answer = await httpRequest(url.toString(), {
        method: request.method,
        headers: {...form?.headers, ...(request.auth && config.token ? {Accesstoken: config.token} : {})},
        body: form?.body,
        timeoutMs: config.timeoutMs,
      })
      if (answer.status < 500 || attempt >= attempts) break
    } catch (error) {
      if (!(error instanceof TransportError) || attempt >= attempts) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt))
  }
  const {status, raw} = answer
  config.debug?.(`HTTP ${status}\n${request.path === '/token/login' ? '(login answer redacted)' : raw}`)
  let body: JsonObject
  try {
    body = parseJsonObject(raw)
  } catch (error) {
    if (error instanceof JsonTooCostlyError) throw new SignatureError(`the answer from ${url.pathname} is refused: ${error.message}`)
    throw new TransportError(`HTTP ${status} from ${url.pathname}: not JSON (${(error as JsonSyntaxError).message})`)
  }
  if (status === 401) throw new SessionError(`the management API refused the session: ${resultMessage(body) || 'HTTP 401'}`)
  if (status === 403) throw new PlatformError(403, resultMessage(body) || 'forbidden', undefined, body)
  if (status !== 200) throw new TransportError(`HTTP ${status} from ${url.pathname}${resultMessage(body) ? `: ${resultMessage(body)}` : ''}`)
  const code = resultCode(body)
  if (Number.isNaN(code)) throw new TransportError(`answer from ${url.pathname} has no code: not a platform answer`)
  if (code !== 0) throw new PlatformError(code, resultMessage(body), undefined, body)
  return body
}
