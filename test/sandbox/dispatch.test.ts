// The dispatcher's order where it decides the answer (dispatch.ts): guards come before what
// they guard, the callback ping and pages are answered by their own rows, and the signed API
// claims only the endpoint catalog's paths.
import {describe, expect, it} from 'vitest'
import {CONTROL_SECRET_HEADER} from '../../src/protocol/local-sandbox.js'
import {controlHeaders, useTestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

async function request(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await fetch(`${t.sandbox.url}${path}`, {method, headers, body})
  return {status: response.status, type: response.headers.get('content-type'), text: await response.text()}
}

describe('the dispatcher', () => {
  it('guards a control call before its schema or handler sees it', async () => {
    // no secret, and a body that would be a 400 for the schema: the guard answers, nothing moves
    const refused = await request('POST', '/_sandbox/clock', {'content-type': 'application/json'}, '{"advanceMs": "soon"')
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.text)).toEqual({code: 403, message: expect.stringContaining(CONTROL_SECRET_HEADER)})
    const clock = await request('GET', '/_sandbox/clock', controlHeaders(t.sandbox.runtime))
    expect(JSON.parse(clock.text)).toMatchObject({offsetMs: 0})
  })

  it('refuses a cross-site form post to the epay pay page before epay handles it', async () => {
    const crossSite = await request('POST', '/epay/pay/T404', {'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site'}, 'method=walletA_h5')
    expect(crossSite.status).toBe(403)
    expect(crossSite.type).toBe('text/html; charset=utf-8')
    expect(crossSite.text).toContain('cross-site form post (cross-site) refused')
  })

  it('answers the callback ping on GET only; a POST there is not a signed API path', async () => {
    const ping = await request('GET', '/unipay/callback/ping', {})
    expect(JSON.parse(ping.text)).toMatchObject({code: 0, msg: 'pong'})
    const post = await request('POST', '/unipay/callback/ping', {'content-type': 'application/json'}, '{}')
    expect(post.status).toBe(404)
    expect(JSON.parse(post.text)).toEqual({code: 10404, message: 'no route POST /unipay/callback/ping', data: null})
  })

  it('passes a path the pages do not know on to the end: not found', async () => {
    const unknown = await request('GET', '/cashier/G1/pick/again', {})
    expect(unknown.status).toBe(404)
    expect(JSON.parse(unknown.text)).toEqual({code: 10404, message: 'no route GET /cashier/G1/pick/again', data: null})
  })

  it('answers the unsigned auth-code call under /unipay/ itself, not as an unknown signed path', async () => {
    const answer = await request('POST', '/unipay/assist/channel/auth/auth', {'content-type': 'application/json'}, '{"mchNo":')
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text)).toMatchObject({code: 10505, data: null})
  })
})
