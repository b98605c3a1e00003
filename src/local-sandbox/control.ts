// The control client: calls to the sandbox's control endpoints (/_sandbox/*), which play the
// payer and the channel, authenticated by the secret in the sandbox's runtime file.
import {CONTROL_SECRET_HEADER, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {PlatformError, TransportError} from '../errors.js'

/** A call to the sandbox's control endpoints, which play the payer and the channel. */
export async function controlCall<T>(runtime: SandboxRuntime, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let response: Response
  try {
    response = await fetch(`${runtime.url}/_sandbox/${path}`, {
      method,
      headers: {'content-type': 'application/json', [CONTROL_SECRET_HEADER]: runtime.controlSecret},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (error) {
    throw new TransportError(`could not reach the local sandbox at ${runtime.url}: ${(error as Error).message}`)
  }
  // a control error, whatever its HTTP status, is {code, message}
  let answer: T & {code?: number; message?: string}
  try {
    answer = (await response.json()) as typeof answer
  } catch {
    throw new TransportError(`the local sandbox at ${runtime.url} gave an answer that is not JSON (HTTP ${response.status})`)
  }
  if (!response.ok || (answer.code !== undefined && answer.code !== 0)) {
    throw new PlatformError(answer.code ?? 1, answer.message ?? `HTTP ${response.status}`, undefined)
  }
  return answer
}

/**
 * The dashboard's sign-in address: a ticket good once, for a few minutes, traded by the browser
 * for the cookie the dashboard acts with (it never acts without the control secret).
 */
export async function dashboardSignInUrl(runtime: SandboxRuntime): Promise<string> {
  const {ticket} = await controlCall<{ticket: string}>(runtime, 'POST', 'dashboard/ticket', {})
  return `${runtime.url}/dashboard?ticket=${encodeURIComponent(ticket)}`
}
