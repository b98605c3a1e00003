// The dashboard as a browser reaches it: signed in once with the ticket `sandbox open` gets over
// the control API, then every request carries the cookie that sign-in left.
import {request} from 'node:http'
import {expect} from 'vitest'
import type {TestSandbox} from './sandbox.js'

/** What `sandbox open` does: a ticket over the control API, traded at /dashboard for the cookie. */
export async function signIn(on: TestSandbox): Promise<string> {
  const {body} = await on.post('/_sandbox/dashboard/ticket', {})
  const {port} = new URL(on.sandbox.url)
  const answer = await rawPage(port, 'GET', `/dashboard?ticket=${body.ticket}`, '', {host: `127.0.0.1:${port}`})
  expect(answer.status).toBe(303)
  return String(answer.headers['set-cookie']).split(';')[0]
}

export function rawPage(port: string, method: string, path: string, body: string, headers: Record<string, string>): Promise<{status: number; text: string; headers: Record<string, unknown>}> {
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port, method, path, headers}, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({status: res.statusCode ?? 0, text, headers: res.headers}))
    })
    req.on('error', reject)
    req.end(body)
  })
}
