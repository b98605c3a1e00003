// The one way requests leave: Node's own HTTP client (loading `got` cost more start-up than
// the rest of a call), no redirects and no retries of its own (the callers decide what may be
// repeated), a cap on the answer's size, and a transport error that says whether the request
// may have landed.
import type {Agent as HttpAgent, IncomingHttpHeaders, IncomingMessage} from 'node:http'
import type {Agent as HttpsAgent} from 'node:https'
import {TransportError, UsageError} from '../errors.js'

/** The largest answer read; a bigger one is refused before it fills memory. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024

/** The address of a path under the platform's base address (which may carry a path prefix). */
export function endpointUrl(baseUrl: string, path: string): string {
  return new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).toString()
}

interface PostOptions {
  timeoutMs?: number
  agent?: {http?: HttpAgent; https?: HttpsAgent}
}

interface HttpRequest extends PostOptions {
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
}

interface HttpAnswer {
  status: number
  raw: string
  headers: IncomingHttpHeaders
}

export async function postJson(url: string, payload: string, options: PostOptions): Promise<{status: number; raw: string}> {
  const {status, raw} = await httpRequest(url, {
    ...options,
    method: 'POST',
    headers: {'content-type': 'application/json; charset=utf-8'},
    body: payload,
  })
  return {status, raw}
}

/** A form POST (application/x-www-form-urlencoded), as the epay and management APIs take. */
export function formBody(fields: Record<string, string>): {headers: Record<string, string>; body: string} {
  return {headers: {'content-type': 'application/x-www-form-urlencoded'}, body: new URLSearchParams(fields).toString()}
}

/** The last address parsed, and its request options: a batch sends every row to the same one. */
let lastTarget: {url: string; target: URL; options: ReturnType<typeof import('node:url').urlToHttpOptions>} | undefined

export async function httpRequest(url: string, request: HttpRequest): Promise<HttpAnswer> {
  if (lastTarget?.url !== url) {
    const parsed = new URL(url)
    lastTarget = {url, target: parsed, options: process.getBuiltinModule('node:url').urlToHttpOptions(parsed)}
  }
  const {target, options: address} = lastTarget
  const timeoutMs = request.timeoutMs ?? 15_000
  const fail = (reason: string, outcomeUnknown: boolean) => new TransportError(`could not reach ${target.origin}: ${reason}`, outcomeUnknown)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw fail(`unsupported protocol ${target.protocol}`, false)
  // Only the module the address needs (https costs start-up a local sandbox call never uses), and
  // not by `import`: from Node 22 on, an ES import of node:http reads every export, and its
  // WebSocket getters load undici (about 30 ms of a start on Node 24).
  const send = target.protocol === 'https:' ? process.getBuiltinModule('node:https').request : process.getBuiltinModule('node:http').request
  const agent = target.protocol === 'https:' ? request.agent?.https : request.agent?.http
  const body = request.body
  const headers: Record<string, string | number> = {'user-agent': 'unipay-cli', ...request.headers}
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body, 'utf8')
  const {validateHeaderValue} = process.getBuiltinModule('node:http')
  for (const name of Object.keys(headers)) {
    try {
      validateHeaderValue(name, String(headers[name]))
    } catch {
      // the value may be a token: named, never shown
      throw new UsageError(`the ${name} header cannot be sent: its value holds a character HTTP headers cannot carry (a control character, or one beyond Latin-1)`)
    }
  }

  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false
    const finish = (error: TransportError | undefined, answer?: HttpAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) {
        outgoing.destroy()
        reject(error)
      } else resolve(answer!)
    }
    // Headers as a list (with the Host header Node would add) skip a setHeader call per header,
    // about a fifth of the client's work per request; Node still checks every name and value.
    // An address with credentials in it keeps the object form, for the Authorization Node adds.
    const listed = address.auth ? undefined : ['host', target.host, ...Object.entries(headers).flatMap(([name, value]) => [name, String(value)])]
    const outgoing = send({...address, method: request.method, headers: listed ?? headers, ...(agent ? {agent} : {})}, (response: IncomingMessage) => {
      // made only when needed: an Error captures a stack, which a batch would pay on every answer
      const tooBig = () => fail(`the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; refused`, true)
      if (Number(response.headers['content-length'] ?? 0) > MAX_ANSWER_BYTES) return finish(tooBig())
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        // counted as it arrives: a missing or false content-length must not let it through
        if (size > MAX_ANSWER_BYTES) finish(tooBig())
        else chunks.push(chunk)
      })
      response.on('end', () => finish(undefined, {status: response.statusCode ?? 0, raw: Buffer.concat(chunks).toString('utf8'), headers: response.headers}))
      response.on('error', (error: NodeJS.ErrnoException) => finish(fail(error.message, true)))
    })
    // Whether a byte of the request may have left: not before the connection is made (and, for
    // https, its TLS handshake done), so a refused connection, a name that does not resolve, a
    // connect timeout or a failed handshake certainly did not take effect. A kept-alive socket
    // is connected already: the request goes out at once.
    let left = false
    outgoing.on('socket', (socket) => {
      if (!socket.connecting && !socket.pending) left = true
      else socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => (left = true))
    })
    // one deadline for the whole exchange, connection to last byte; armed only once the request
    // exists, so nothing is left to fire when building it throws
    const timer = setTimeout(() => finish(left ? fail(`no answer within ${timeoutMs / 1000}s`, true) : fail(`no connection within ${timeoutMs / 1000}s`, false)), timeoutMs)
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      finish(fail(error.message, left))
    })
    outgoing.end(body, 'utf8')
  })
}
