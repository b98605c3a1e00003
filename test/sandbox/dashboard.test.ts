// The dashboard: server-rendered state, escaped; its buttons (plain form posts) pay an order,
// settle a refund, resend a callback; cross-site posts and rebound hosts are refused.
import {randomBytes} from 'node:crypto'
import {beforeAll, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {rawPage, signIn} from '../helpers/dashboard.js'
import {sdkCommon, sdkSigned, unique} from '../helpers/sdk.js'
import {useCallbackReceiver, useTestSandbox, waitFor} from '../helpers/sandbox.js'

const t = useTestSandbox()
const receiver = useCallbackReceiver()
/** The cookie `sandbox open`'s sign-in leaves in the browser. */
let cookie: string
beforeAll(async () => {
  cookie = await signIn(t)
})

function page(method: string, body = '', headers: Record<string, string> = {}) {
  const {port} = new URL(t.sandbox.url)
  const origin = `http://127.0.0.1:${port}`
  const base: Record<string, string> = method === 'POST' ? {'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin'} : {}
  return rawPage(port, method, '/dashboard', body, {host: `127.0.0.1:${port}`, cookie, ...base, ...headers})
}

const createOrder = async (title: string) =>
  (await t.send(endpoints.pay, {bizOrderNo: `D${randomBytes(6).toString('hex')}`, title, amount: 250, notifyUrl: receiver.url})).data

describe('dashboard', () => {
  it('lists an order with its title escaped, and a form post pays it; its callback shows up', async () => {
    const order = await createOrder('<script>alert(1)</script>')
    const before = await page('GET')
    expect(before.status).toBe(200)
    expect(before.headers['content-security-policy']).toContain("form-action 'self'")
    expect(before.text).toContain(order.orderNo)
    expect(before.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(before.text).not.toContain('<script>alert(1)')
    const paid = await page('POST', `action=pay&id=${order.orderNo}`)
    expect(paid.status).toBe(303)
    expect((await t.send(endpoints.queryPay, {orderNo: order.orderNo})).data.status).toBe('success')
    await waitFor(() => receiver.received.some((r) => r.body.includes(order.orderNo)))
    const after = await page('GET')
    expect(after.text).toMatch(new RegExp(`pay\\.success<br><code class="hint">[^<]+</code></td><td><code>${receiver.url.replace(/[.]/g, '\\.')}`))
  })

  it('shows a title\'s control characters as text: the page fetched to a terminal carries no raw ESC or BEL', async () => {
    // the sandbox takes what the platform takes (a title with control characters, which our own
    // client refuses to send: an outside signer sends it), and shows it inert
    const bizOrderNo = unique('D')
    const body = sdkSigned({...sdkCommon(), bizOrderNo, title: 'Tea\u001b]0;owned\u0007\u001b[2J\u009b31m\u202eevil', amount: 250, method: 'walletA_qr'}, t.merchantPem)
    expect((await t.post(endpoints.pay.path, body)).body.code).toBe(0)
    const text = (await page('GET')).text
    expect(text).toContain(bizOrderNo)
    expect(text).toContain('Tea\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202eevil')
    // eslint-disable-next-line no-control-regex -- what must not be in the page
    expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202e]/)
  })

  it('settles a refund and resends a callback', async () => {
    const order = await createOrder('Refunded')
    await page('POST', `action=pay&id=${order.orderNo}`)
    const refund = (await t.send(endpoints.refund, {bizOrderNo: order.bizOrderNo, amount: 100, bizRefundNo: `R${randomBytes(4).toString('hex')}`})).data
    expect((await page('POST', `action=refund-fail&id=${refund.refundNo}`)).status).toBe(303)
    expect((await t.send(endpoints.queryRefund, {refundNo: refund.refundNo})).data.status).toBe('fail')
    // a second settle is refused with the reason on the page
    const again = await page('POST', `action=refund-success&id=${refund.refundNo}`)
    expect(again.status).toBe(409)
    expect(again.text).toContain('already fail')
    const id = /data-action="resend" data-id="([^"]+)"/.exec((await page('GET')).text)![1]
    const count = receiver.received.length
    expect((await page('POST', `action=resend&id=${encodeURIComponent(id)}`)).status).toBe(303)
    await waitFor(() => receiver.received.length > count)
  })

  it('refuses a cross-site post and a rebound host, leaving the order open', async () => {
    const order = await createOrder('Guarded')
    const {port} = new URL(t.sandbox.url)
    expect((await page('POST', `action=pay&id=${order.orderNo}`, {origin: 'https://evil.example', 'sec-fetch-site': 'cross-site'})).status).toBe(403)
    expect((await page('GET', '', {host: `evil.example:${port}`})).status).toBe(403)
    expect((await t.send(endpoints.queryPay, {orderNo: order.orderNo})).data.status).not.toBe('success')
  })
})
