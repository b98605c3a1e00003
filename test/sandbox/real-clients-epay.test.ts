// epay V2 as its merchant SDK speaks it (parameters written out, signed by an independent
// signer): whitespace-only values, the answers clients read, replays, and notifications that
// stay valid when retried or resent after the SDK's 300 s window.
import {randomBytes} from 'node:crypto'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Notification} from '../../src/sandbox/notifier.js'
import {epayV2Sign, epayV2Verify, oracleSign} from '../helpers/sdk.js'
import {controlHeaders, useTestSandbox, waitFor} from '../helpers/sandbox.js'

const V2 = '/epay/api/v2/api/pay/'
/** The platform's clock and the SDK's: one clock, standing still but where the tests move it. */
const startedAt = Date.now()
let offsetMs = 0
const clock = () => new Date(startedAt + offsetMs)
const seconds = () => String(Math.floor(clock().getTime() / 1000))
const t = useTestSandbox({now: clock})
let platformPem = ''

beforeAll(async () => {
  platformPem = t.sandbox.runtime.platformPublicKeyPem
})

const unique = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`

/** What the V2 SDK sends: its parameters, timestamp, sign over its selection, sign_type. */
function sdk(params: Record<string, string>): Record<string, string> {
  const all = {pid: 'M1000000001', ...params, timestamp: seconds()}
  return {...all, sign: epayV2Sign(all, t.merchantPem), sign_type: 'RSA'}
}

async function post(action: string, params: Record<string, string>) {
  const response = await fetch(`${t.sandbox.url}${V2}${action}`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams(params).toString(),
  })
  return (await response.json()) as Record<string, any>
}

async function paidOrder(money = '10.00', extra: Record<string, string> = {}) {
  const outTradeNo = unique('E')
  const created = await post('create', sdk({type: 'walletA', method: 'web', out_trade_no: outTradeNo, name: 'VIP', money, ...extra}))
  expect(created.code).toBe(0)
  await t.post('/_sandbox/pay', {order: created.trade_no})
  return {outTradeNo, tradeNo: created.trade_no as string}
}

describe('whitespace-only values (point 5)', () => {
  it('accepts a create whose `param` is one space, signed the V2 SDK way (dropped) and the other way (kept)', async () => {
    expect((await post('create', sdk({type: 'walletA', method: 'web', out_trade_no: unique('E'), name: 'VIP', money: '1.00', param: ' '}))).code).toBe(0)
    // a signer that drops only exactly-empty values keeps `param= `
    const kept = {pid: 'M1000000001', type: 'walletA', method: 'web', out_trade_no: unique('E'), name: 'VIP', money: '1.00', param: ' ', timestamp: seconds()}
    const keptText = Object.entries(kept).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&')
    expect((await post('create', {...kept, sign: oracleSign(keptText, t.merchantPem), sign_type: 'RSA'})).code).toBe(0)
    // still bound to every value that counts
    const signed = sdk({type: 'walletA', method: 'web', out_trade_no: unique('E'), name: 'VIP', money: '1.00', param: ' '})
    expect((await post('create', {...signed, money: '2.00'})).code).toBe(20052)
    expect((await post('create', {...signed, param: 'x'})).code).toBe(20052)
  })
})

describe('answers clients read (point 6)', () => {
  it('refundquery status is numeric, query carries refundmoney in yuan, refusals speak epay', async () => {
    const {outTradeNo, tradeNo} = await paidOrder('10.00')
    const outRefundNo = unique('R')
    const refund = await post('refund', sdk({out_trade_no: outTradeNo, money: '2.50', out_refund_no: outRefundNo}))
    expect(refund).toMatchObject({code: 0, out_refund_no: outRefundNo, trade_no: tradeNo, money: '2.50', reducemoney: '2.50'})
    // settled by the channel a second later
    await t.advance(1000)
    const settled = await post('refundquery', sdk({out_refund_no: outRefundNo}))
    expect(settled).toMatchObject({code: 0, status: 1, refund_no: refund.refund_no, out_trade_no: outTradeNo, money: '2.50', reducemoney: '2.50'})
    expect(await post('query', sdk({out_trade_no: outTradeNo}))).toMatchObject({code: 0, status: 1, money: '10.00', refundmoney: '2.50'})

    const over = await post('refund', sdk({out_trade_no: outTradeNo, money: '8.00', out_refund_no: unique('R')}))
    expect(over.code).toBe(20060)
    expect(over.msg).toBe(`money 8.00 is over what can still be refunded of trade_no ${tradeNo} (7.50 yuan)`)
    const reused = await post('refund', sdk({out_trade_no: outTradeNo, money: '1.00', out_refund_no: outRefundNo}))
    expect(reused.code).toBe(10507)
    expect(reused.msg).toContain(`out_refund_no ${outRefundNo}`)
    expect(reused.msg).not.toMatch(/bizRefundNo/)
    const missing = await post('refundquery', sdk({out_refund_no: 'NOPE'}))
    expect(missing.msg).toBe('no refund with out_refund_no NOPE')
  })

  it('an order never refunded carries no refundmoney', async () => {
    const {outTradeNo} = await paidOrder('1.00')
    expect(await post('query', sdk({out_trade_no: outTradeNo}))).not.toHaveProperty('refundmoney')
  })
})

describe('replays (point 7)', () => {
  it('carries out a refund without out_refund_no once, however often the same signed request is sent', async () => {
    const {outTradeNo} = await paidOrder('10.00')
    const signed = sdk({out_trade_no: outTradeNo, money: '1.00'})
    const answers = [await post('refund', signed), await post('refund', signed), await post('refund', signed)]
    expect(answers.map((a) => a.code)).toEqual([0, 10409, 10409])
    expect(answers[1].msg).toMatch(/already received/)
    expect(await post('query', sdk({out_trade_no: outTradeNo}))).toMatchObject({refundmoney: '1.00'})
    // a freshly signed request for the same refund is a new refund, as the client meant
    offsetMs += 1000
    expect((await post('refund', sdk({out_trade_no: outTradeNo, money: '1.00'}))).code).toBe(0)
  })
})

describe('notifications that stay valid (point 4)', () => {
  let server: Server
  let url = ''
  const arrivals: {params: Record<string, string>; at: Date}[] = []
  /** What the receiver does with the next arrival, before answering. */
  const onArrival: (() => {status: number; body: string})[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      const params = Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams)
      arrivals.push({params, at: clock()})
      const answer = onArrival.shift()?.() ?? {status: 200, body: 'success'}
      res.writeHead(answer.status, {'content-type': 'text/plain'}).end(answer.body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  /** The V2 SDK's acceptance: signature over its selection, timestamp within 300 s of its clock. */
  const sdkAccepts = (arrival: {params: Record<string, string>; at: Date}) =>
    epayV2Verify(arrival.params, platformPem) && Math.abs(Math.floor(arrival.at.getTime() / 1000) - Number(arrival.params.timestamp)) <= 300

  it('signs every attempt afresh: a retry 10 minutes later and a manual resend an hour later are accepted', async () => {
    const start = arrivals.length
    // the receiver is down for the first attempt; by the retry the clock has moved 10 minutes on
    onArrival.push(() => {
      offsetMs += 600_000
      return {status: 503, body: 'busy'}
    })
    const {tradeNo} = await paidOrder('3.00', {notify_url: url, param: ' '})
    await waitFor(() => arrivals.length === start + 1)
    // the retry is due 15 s after the first attempt
    await t.advance(15_000)
    const [first, retry] = arrivals.slice(start)
    expect(first.params).toMatchObject({trade_no: tradeNo, trade_status: 'TRADE_SUCCESS', money: '3.00', param: ' '})
    expect(sdkAccepts(retry)).toBe(true)
    expect(Number(retry.params.timestamp) - Number(first.params.timestamp)).toBeGreaterThanOrEqual(600)
    const list = (await (await fetch(`${t.sandbox.url}/_sandbox/notifications`, {headers: controlHeaders(t.sandbox.runtime)})).json()) as (Notification & {url: string})[]
    const notification = list.find((n) => n.url.includes(tradeNo))!
    expect(notification.state).toBe('delivered')
    // what the log shows is what was sent last
    expect(new URL(notification.url).searchParams.get('sign')).toBe(retry.params.sign)

    offsetMs += 3_600_000
    await fetch(`${t.sandbox.url}/_sandbox/notifications/${notification.id}/resend`, {method: 'POST', headers: controlHeaders(t.sandbox.runtime)})
    await waitFor(() => arrivals.length >= start + 3)
    const resent = arrivals[start + 2]
    expect(sdkAccepts(resent)).toBe(true)
    expect(Number(resent.params.timestamp) - Number(retry.params.timestamp)).toBeGreaterThanOrEqual(3600)
  })
})
