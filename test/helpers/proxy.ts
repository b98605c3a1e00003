// A platform in front of the test's sandbox: every request is passed on as it came, and recorded,
// except those a test answers itself, signed with the sandbox's platform key (a signed error a
// sandbox never gives for a query, an answer whose signature was tampered with).
import {createServer, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {inject} from 'vitest'
import {canonicalString} from '../../src/protocol/canonical.js'
import {loadPrivateKey} from '../../src/protocol/keys.js'
import {signString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'

export interface Proxy {
  url: string
  /** Every request that reached it: method, path and JSON body (if any). */
  received: {method: string; path: string; body?: Record<string, any>}[]
  /** An answer of the test's own for a request, or undefined to pass it on. */
  answer?: (body: Record<string, any>, path: string) => {code: number; msg: string; data?: unknown; tamper?: boolean} | undefined
  /** While set, every connection is cut as soon as its request is read: the platform is gone. */
  down?: boolean
  /** Milliseconds each request waits before it is answered or passed on (a slow platform). */
  delayMs?: number
  close(): Promise<void>
}

/** A signed answer the sandbox's platform key makes (`tamper`: a character of its signature changed). */
function signed(reqId: unknown, answer: {code: number; msg: string; data?: unknown; tamper?: boolean}): string {
  const key = loadPrivateKey(inject('sandboxKeys').platform.privateKeyPem)
  const body: Record<string, unknown> = {code: answer.code, msg: answer.msg, data: answer.data ?? null, resTime: formatGmt8(new Date()), reqId}
  let sign = signString(canonicalString(body), key)
  if (answer.tamper) sign = `${sign[0] === 'A' ? 'B' : 'A'}${sign.slice(1)}`
  return JSON.stringify({...body, sign})
}

const later = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms))

export async function proxyTo(target: string): Promise<Proxy> {
  const proxy = {received: [] as Proxy['received']} as Proxy
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => void later(proxy.delayMs).then(() => {
      const raw = Buffer.concat(chunks)
      let body: Record<string, any> | undefined
      try {
        body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined
      } catch {
        body = undefined
      }
      proxy.received.push({method: req.method!, path: req.url!, body})
      const own = body && proxy.answer?.(body, req.url!)
      if (proxy.down) return void req.socket.destroy()
      if (own) {
        res.writeHead(200, {'content-type': 'application/json'})
        return void res.end(signed(body!.reqId, own))
      }
      const onward = request(`${target}${req.url}`, {method: req.method, headers: req.headers}, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      onward.on('error', () => res.destroy())
      onward.end(raw)
    }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return proxy
}
