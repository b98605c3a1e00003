// The one way requests leave: a JSON POST with got, no retries of its own (the callers decide
// what may be repeated), and a transport error that says whether the request may have landed.
import type {Agent as HttpAgent} from 'node:http'
import type {Agent as HttpsAgent} from 'node:https'
import {TransportError} from '../errors.js'

/** The address of a path under the platform's base address (which may carry a path prefix). */
export function endpointUrl(baseUrl: string, path: string): string {
  return new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).toString()
}

export interface PostOptions {
  timeoutMs?: number
  agent?: {http?: HttpAgent; https?: HttpsAgent}
}

export async function postJson(url: string, payload: string, options: PostOptions): Promise<{status: number; raw: string}> {
  const {got, RequestError} = await import('got')
  const timeoutMs = options.timeoutMs ?? 15_000
  try {
    const response = await got.post(url, {
      body: payload,
      headers: {'content-type': 'application/json; charset=utf-8', 'user-agent': 'unipay-cli'},
      timeout: {request: timeoutMs},
      retry: {limit: 0},
      throwHttpErrors: false,
      followRedirect: false,
      agent: options.agent,
    })
    return {status: response.statusCode, raw: response.body}
  } catch (error) {
    const code = error instanceof RequestError ? error.code : undefined
    // refused or unresolvable: the request never left, so it certainly did not take effect
    const notSent = code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'
    const reason = code === 'ETIMEDOUT' ? `no answer within ${timeoutMs / 1000}s` : (error as Error).message
    throw new TransportError(`could not reach ${new URL(url).origin}: ${reason}`, !notSent)
  }
}
