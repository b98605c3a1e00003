// The sandbox's control endpoints and page forms refuse what a foreign web page or another local
// user could send: no secret, a text/plain body, a foreign Origin, a rebound Host, a cross-site post.
import {randomBytes} from 'node:crypto'
import {request} from 'node:http'
import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {CONTROL_SECRET_HEADER} from '../../src/protocol/local-sandbox.js'
import {controlHeaders, removeDir, testSandbox, useTestSandbox} from '../helpers/sandbox.js'
import {newKeyPair} from '../helpers/sandbox-keys.js'

const t = useTestSandbox()

/** node:http rather than fetch: fetch will not send a chosen Host header. */
function raw(method: string, path: string, headers: Record<string, string>, body = ''): Promise<{status: number; text: string; headers: Record<string, unknown>}> {
  const {port} = new URL(t.sandbox.url)
  return new Promise((resolve, reject) => {
    const req = request({host: '127.0.0.1', port, method, path, headers: {host: `127.0.0.1:${port}`, ...headers}}, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({status: res.statusCode ?? 0, text, headers: res.headers}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const newKey = async () => JSON.stringify({mchNo: t.client.mchNo, appId: t.client.appId, publicKeyPem: (await newKeyPair()).publicKeyPem})
const pingWorks = async () => (await t.send(endpoints.ping, {})).code === 0

describe('control endpoints', () => {
  it('refuse a call without the secret, or with a wrong one, and keep the merchant key', async () => {
    const none = await raw('POST', '/_sandbox/merchants', {'content-type': 'application/json'}, await newKey())
    expect(none.status).toBe(403)
    expect(none.text).toContain(CONTROL_SECRET_HEADER)
    const wrong = await raw('POST', '/_sandbox/merchants', {'content-type': 'application/json', [CONTROL_SECRET_HEADER]: 'x'.repeat(43)}, await newKey())
    expect(wrong.status).toBe(403)
    expect((await raw('GET', '/_sandbox/notifications', {})).status).toBe(403)
    expect(await pingWorks()).toBe(true)
  })

  it('refuse a text/plain body (a cross-site form or fetch without preflight), even with the secret', async () => {
    const plain = await raw('POST', '/_sandbox/merchants', {...controlHeaders(t.sandbox.runtime), 'content-type': 'text/plain;charset=UTF-8'}, await newKey())
    expect(plain.status).toBe(403)
    expect(plain.text).toContain('JSON body')
    expect(await pingWorks()).toBe(true)
  })

  it('refuse a foreign Origin', async () => {
    const foreign = await raw('POST', '/_sandbox/merchants', {...controlHeaders(t.sandbox.runtime), origin: 'https://evil.example'}, await newKey())
    expect(foreign.status).toBe(403)
    expect(foreign.text).toContain('https://evil.example')
    expect(await pingWorks()).toBe(true)
  })

  it('refuse a Host other than the sandbox\'s own address (DNS rebinding)', async () => {
    const {port} = new URL(t.sandbox.url)
    const rebound = await raw('GET', '/_sandbox/notifications', {...controlHeaders(t.sandbox.runtime), host: `evil.example:${port}`})
    expect(rebound.status).toBe(403)
    expect(rebound.text).toContain('evil.example')
    // the loopback names of the same port are the sandbox itself
    expect((await raw('GET', '/_sandbox/notifications', {...controlHeaders(t.sandbox.runtime), host: `localhost:${port}`})).status).toBe(200)
  })

  it('accept a JSON call with the secret', async () => {
    const answer = await raw('POST', '/_sandbox/balance', controlHeaders(t.sandbox.runtime), JSON.stringify({mchNo: t.client.mchNo, amount: 500}))
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text)).toEqual({mchNo: t.client.mchNo, balance: 500})
  })

  it('a new start has a new secret', async () => {
    const other = await testSandbox()
    try {
      expect(other.sandbox.runtime.controlSecret).not.toBe(t.sandbox.runtime.controlSecret)
      expect(other.sandbox.runtime.controlSecret.length).toBeGreaterThanOrEqual(40)
    } finally {
      await other.close()
      removeDir(other.dataDir)
    }
  })
})

describe('payer page forms', () => {
  const cashier = async () => (await t.send(endpoints.gatewayPrePay, {bizOrderNo: `G${randomBytes(6).toString('hex')}`, title: 'Tea', amount: 100, gatewayPayType: 'cashier'})).data
  const form = 'method=walletA_h5'

  it('refuse a cross-site post (Sec-Fetch-Site), leaving the order untouched', async () => {
    const order = await cashier()
    const path = `/cashier/${order.orderNo}/pick`
    const crossSite = await raw('POST', path, {'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site', origin: 'https://evil.example'}, form)
    expect(crossSite.status).toBe(403)
    expect((await t.send(endpoints.queryGateway, {orderNo: order.orderNo})).data.status).toBe('wait_pay')
  })

  it('refuse a foreign Origin and a rebound Host', async () => {
    const order = await cashier()
    const path = `/cashier/${order.orderNo}/pick`
    const {port} = new URL(t.sandbox.url)
    expect((await raw('POST', path, {'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example'}, form)).status).toBe(403)
    expect((await raw('POST', path, {'content-type': 'application/x-www-form-urlencoded', host: `evil.example:${port}`, origin: `http://evil.example:${port}`}, form)).status).toBe(403)
    expect((await t.send(endpoints.queryGateway, {orderNo: order.orderNo})).data.status).toBe('wait_pay')
  })

  it('accept a post from the page itself', async () => {
    const order = await cashier()
    const origin = new URL(t.sandbox.url).origin
    const same = await raw('POST', `/cashier/${order.orderNo}/pick`, {'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin}, form)
    expect(same.status).toBe(303)
    expect((await t.send(endpoints.queryGateway, {orderNo: order.orderNo})).data.status).not.toBe('wait_pay')
  })
})
