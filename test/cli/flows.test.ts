// Whole flows an integrator tries before going live (issue 12), through the CLI against a
// local sandbox: gateway trades as payments, completing a partial split, the clock.
import {randomBytes} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AllocCreateResult} from '../../src/commands/alloc/index.js'
import type {AuthUrlResult} from '../../src/commands/auth/url.js'
import type {GatewayPrepayResult} from '../../src/commands/gateway/prepay.js'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {PaySyncResult} from '../../src/commands/pay/sync.js'
import type {QueryAllocResult} from '../../src/commands/query/alloc.js'
import type {QueryGatewayResult} from '../../src/commands/query/gateway.js'
import type {QueryPayResult} from '../../src/commands/query/pay.js'
import type {QueryRefundResult} from '../../src/commands/query/refund.js'
import type {QueryTransferResult} from '../../src/commands/query/transfer.js'
import type {RefundCreateResult} from '../../src/commands/refund/create.js'
import type {RefundSyncResult} from '../../src/commands/refund/sync.js'
import type {SandboxBalanceResult} from '../../src/commands/sandbox/balance.js'
import type {SandboxClockAdvanceResult} from '../../src/commands/sandbox/clock/advance.js'
import type {SandboxClockPauseResult} from '../../src/commands/sandbox/clock/pause.js'
import type {SandboxPayResult} from '../../src/commands/sandbox/pay.js'
import type {SandboxTransferConfirmResult} from '../../src/commands/sandbox/transfer/confirm.js'
import type {SandboxTransferRejectResult} from '../../src/commands/sandbox/transfer/reject.js'
import type {TransferResult} from '../../src/commands/transfer/index.js'
import type {TransferSyncResult} from '../../src/commands/transfer/sync.js'
import {parseGmt8} from '../../src/protocol/time.js'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'


let c: Cli
let receiver: Receiver
beforeAll(async () => {
  c = cli()
  receiver = await callbackReceiver()
  // the sandbox clock stands still: refunds and splits settle when a test moves it (1 s does)
  await startPausedSandbox(c)
})
afterAll(async () => {
  await receiver.close()
  await c.cleanup()
})

/** Whether a callback with this event arrived for the order (callback data values are strings). */
const called = (event: string, field: string, value: string) =>
  receiver.received.some((r) => {
    const body = JSON.parse(r.body) as {event: string; data: Record<string, string>}
    return body.event === event && body.data[field] === value
  })

const unique = (prefix: string) => `${prefix}${randomBytes(4).toString('hex').toUpperCase()}`

async function advance(duration: string): Promise<void> {
  expect((await c.run(['sandbox', 'clock', 'advance', duration])).code).toBe(0)
}

async function gatewayOrder(type = 'cashier', extra: string[] = []) {
  return c.result<GatewayPrepayResult>(['gateway', 'prepay', '--type', type, '--title', 'Flow', '--amount', '1000', '--notify-url', receiver.url, ...extra])
}

describe('a paid gateway order is a payment', () => {
  it('pays a cashier order with the chosen method, then queries, refunds and syncs it as a payment', async () => {
    const {orderNo, bizOrderNo} = await gatewayOrder()
    const paid = await c.result<SandboxPayResult>(['sandbox', 'pay', orderNo, '--method', 'walletB_h5'])
    expect(paid).toMatchObject({orderNo, status: 'paid', method: 'walletB_h5', channel: 'walletB'})
    const tradeNo = paid.tradeNo!
    expect(tradeNo).toMatch(/^GT/)

    const byNumber = await c.result<QueryPayResult>(['query', 'pay', '--order-no', orderNo])
    expect(byNumber).toMatchObject({orderNo, bizOrderNo, tradeNo, status: 'success', method: 'walletB_h5', amount: 1000, refundableBalance: 1000})
    expect((await c.result<QueryPayResult>(['query', 'pay', '--biz-order-no', bizOrderNo])).orderNo).toBe(orderNo)

    const refund = await c.result<RefundCreateResult>(['refund', 'create', '--trade-no', tradeNo, '--amount', '400'])
    expect(refund.status).toBe('progress')
    await advance('1s')
    expect(await c.result<QueryPayResult>(['query', 'pay', '--order-no', orderNo])).toMatchObject({refundStatus: 'partial_refund', refundableBalance: 600})
    // the refund's callback goes to the gateway order's notifyUrl, like the payment's (sent before the clock's move answered)
    expect(called('refund.success', 'tradeNo', tradeNo)).toBe(true)
    expect(called('pay.success', 'orderNo', orderNo)).toBe(true)
    expect(await c.result<PaySyncResult>(['pay', 'sync', '--order-no', orderNo])).toEqual({orderStatus: 'success', adjust: false})
    // a paid gateway order is final
    const close = await c.run(['pay', 'close', '--order-no', orderNo])
    expect(close.code).toBe(1)
    expect(close.stderr).toMatch(/platform error 20044: order \S+ is paid; only wait_pay or paying orders can be closed/)
  })

  it('splits a paid allocation gateway order', async () => {
    const account = unique('MCH')
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', account, '--name', 'Shop'])).code).toBe(0)
    const {orderNo} = await gatewayOrder('aggregate', ['--allocation'])
    const paid = await c.result<SandboxPayResult>(['sandbox', 'pay', orderNo, '--wallet', 'walletA'])
    expect(paid).toMatchObject({status: 'paid', method: 'walletA_jsapi'})
    const split = await c.result<AllocCreateResult>(['alloc', '--trade-no', paid.tradeNo!, '--receiver', `MERCHANT_ID:${account}:3.00:Shop`])
    await advance('1s')
    expect((await c.result<QueryAllocResult>(['query', 'alloc', '--alloc-no', split.allocNo])).status).toBe('success')
    expect((await c.result<QueryPayResult>(['query', 'pay', '--order-no', orderNo])).refundableBalance).toBe(700)
  })

  it('sends query pay on an unpaid gateway order to query gateway, and closes it by its orderNo', async () => {
    const {orderNo, bizOrderNo} = await gatewayOrder()
    const query = await c.run(['query', 'pay', '--order-no', orderNo])
    expect(query.code).toBe(1)
    expect(query.stderr).toContain(`platform error 20041: ${orderNo} is a gateway order that is wait_pay: it becomes a payment only once paid; query it as a gateway order (query gateway)`)
    expect((await c.run(['query', 'pay', '--biz-order-no', bizOrderNo])).stderr).toContain('query gateway')

    const closed = await c.run(['pay', 'close', '--order-no', orderNo])
    expect(closed.code).toBe(0)
    expect((await c.result<QueryGatewayResult>(['query', 'gateway', '--order-no', orderNo])).status).toBe('closed')
    await waitFor(() => called('pay.close', 'orderNo', orderNo))
    const pay = await c.run(['sandbox', 'pay', orderNo])
    expect(pay.code).toBe(1)
    expect(pay.stderr).toContain('this order is closed; it can no longer be paid')
  })

  it('refuses a method the page does not offer; a failed payment stays a gateway order', async () => {
    const {orderNo} = await gatewayOrder()
    const wrong = await c.run(['sandbox', 'pay', orderNo, '--method', 'walletA_jsapi'])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('method walletA_jsapi is not offered for this order')
    expect(await c.result<SandboxPayResult>(['sandbox', 'pay', orderNo, '--wallet', 'walletD', '--fail'])).toMatchObject({status: 'failed', method: 'walletD_h5'})
    expect((await c.run(['query', 'pay', '--order-no', orderNo])).stderr).toContain('is a gateway order that is failed')
  })
})

describe('log in once, pay with the stored openId', () => {
  it('sends jsapi and mini payments without --open-id; the platform refuses them until auth exchange --set', async () => {
    const before = await c.run(['pay', 'create', '--title', 'Jsapi', '--amount', '100', '--method', 'walletA_jsapi'])
    expect(before.code).toBe(1)
    expect(before.stderr).toContain('platform error 10506: openId: is required for walletA_jsapi')

    const {queryCode, authUrl} = await c.result<AuthUrlResult>(['auth', 'url'])
    expect((await fetch(`${authUrl}/approve`, {method: 'POST', redirect: 'manual'})).status).toBe(303)
    expect((await c.run(['auth', 'exchange', '--auth-code', 'x', '--query-code', queryCode, '--set'])).code).toBe(0)
    for (const method of ['walletA_jsapi', 'walletA_mini']) {
      expect(await c.result<PayCreateResult>(['pay', 'create', '--title', 'Jsapi', '--amount', '100', '--method', method])).toMatchObject({status: 'progress', payBodyType: 'jsapi'})
    }
  })
})

describe('auto-routing', () => {
  it('answers an aggregate QR whose link is a working payer page for that order', async () => {
    const created = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Routed', '--amount', '250', '--notify-url', receiver.url])
    expect(created).toMatchObject({status: 'progress', payBodyType: 'qr_code'})
    const link = created.payBody!
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/aggregate\/DP\d+$/)
    const screen = await fetch(link)
    expect(screen.status).toBe(200)
    const html = await screen.text()
    expect(html).toContain('id="qr"')
    expect(html).toContain('Routed')
    const refused = await fetch(`${link}/pay`, {method: 'POST', redirect: 'manual'})
    expect(refused.status).toBe(400)
    const paid = await fetch(`${link}/pay`, {method: 'POST', redirect: 'manual', headers: {'user-agent': 'Mozilla/5.0 WalletB/10.5'}})
    expect(paid.status).toBe(303)
    expect(await c.result<QueryPayResult>(['query', 'pay', '--order-no', created.orderNo])).toMatchObject({status: 'success', channel: 'walletB', method: 'aggregate_pay_qrcode'})
    expect(await (await fetch(link)).text()).toContain('data-status="success"')
    expect((await fetch(`${link.replace(/DP\d+$/, 'DP1')}`)).status).toBe(404)
  })

  it('infers the method from capability when channelMchNo is given', async () => {
    const inferred = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Cap', '--amount', '100', '--capability', 'walletB_h5', '--data', '{"channelMchNo":"CM1"}'])
    expect(inferred.payBodyType).toBe('link')
    expect((await c.result<QueryPayResult>(['query', 'pay', '--order-no', inferred.orderNo])).method).toBe('walletB_h5')
    const unknown = await c.run(['pay', 'create', '--title', 'Cap', '--amount', '100', '--capability', 'fastpay', '--data', '{"channelMchNo":"CM1"}'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('platform error 10506: capability: fastpay names no PayMethodEnum value')
  })
})

describe('receivers are checked as the channel would', () => {
  it('refuses a nameless walletA merchant receiver and walletB-only types elsewhere, and splits a walletB order to USER_ID', async () => {
    const merchant = unique('MCH')
    const user = `2088${randomBytes(4).readUInt32BE()}`
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', merchant])).code).toBe(0)
    expect((await c.run(['sandbox', 'receivers', 'bind', 'USER_ID', user])).code).toBe(0)
    const walletA = await c.result<PayCreateResult>(['pay', 'create', '--title', 'A', '--amount', '500', '--auth-code', '134567890123456789', '--allocation'])
    const nameless = await c.run(['alloc', '--trade-no', walletA.tradeNo, '--receiver', `MERCHANT_ID:${merchant}:1.00`])
    expect(nameless.code).toBe(1)
    expect(nameless.stderr).toContain('platform error 10506: receivers[0].receiverName: is required for a walletA MERCHANT_ID receiver')
    const userOnA = await c.run(['alloc', '--trade-no', walletA.tradeNo, '--receiver', `USER_ID:${user}:1.00`])
    expect(userOnA.stderr).toContain('platform error 10506: receivers[0].receiverType: USER_ID receivers exist only in walletB; this order was paid with walletA')
    // nothing was reserved by the refused splits
    expect((await c.result<QueryPayResult>(['query', 'pay', '--order-no', walletA.orderNo])).refundableBalance).toBe(500)

    const walletB = await c.result<PayCreateResult>(['pay', 'create', '--title', 'B', '--amount', '500', '--auth-code', '284567890123456789', '--allocation'])
    const merchantOnB = await c.run(['alloc', '--trade-no', walletB.tradeNo, '--receiver', `MERCHANT_ID:${merchant}:1.00:Shop`])
    expect(merchantOnB.stderr).toContain('receivers[0].receiverType: MERCHANT_ID receivers exist only in walletA / walletD; this order was paid with walletB')
    expect((await c.result<AllocCreateResult>(['alloc', '--trade-no', walletB.tradeNo, '--receiver', `USER_ID:${user}:1.00`])).status).toBe('processing')
  })
})

describe('sync can correct', () => {
  it('corrects a closed payment, a refund in progress and an unconfirmed transfer the channel completed (test:sync)', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Order test:sync', '--amount', '300', '--method', 'walletB_qr', '--notify-url', receiver.url])
    expect((await c.run(['pay', 'close', '--order-no', order.orderNo])).code).toBe(0)
    expect(await c.result<PaySyncResult>(['pay', 'sync', '--order-no', order.orderNo])).toEqual({orderStatus: 'success', adjust: true})
    expect(await c.result<QueryPayResult>(['query', 'pay', '--order-no', order.orderNo])).toMatchObject({status: 'success', refundableBalance: 300})
    await waitFor(() => called('pay.success', 'orderNo', order.orderNo))
    expect(await c.result<PaySyncResult>(['pay', 'sync', '--order-no', order.orderNo])).toEqual({orderStatus: 'success', adjust: false})

    const refund = await c.result<RefundCreateResult>(['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '100', '--reason', 'test:sync'])
    expect(refund.status).toBe('progress')
    expect(await c.result<RefundSyncResult>(['refund', 'sync', '--refund-no', refund.refundNo])).toEqual({orderStatus: 'success', adjust: true})
    await waitFor(() => called('refund.success', 'refundNo', refund.refundNo))
    expect(await c.result<QueryPayResult>(['query', 'pay', '--order-no', order.orderNo])).toMatchObject({refundableBalance: 200, refundStatus: 'partial_refund'})

    const transfer = await c.result<TransferResult>(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'oSync', '--amount', '100', '--title', 'Prize test:sync'])
    expect(await c.result<TransferSyncResult>(['transfer', 'sync', '--transfer-no', transfer.transferNo])).toEqual({orderStatus: 'success', adjust: true})
    expect((await c.result<QueryTransferResult>(['query', 'transfer', '--transfer-no', transfer.transferNo])).status).toBe('success')
  })
})

describe('consistency', () => {
  it('refuses a past expiredTime the same way on pay and gateway', async () => {
    for (const args of [['pay', 'create', '--method', 'walletB_qr'], ['gateway', 'prepay', '--type', 'cashier']]) {
      const past = await c.run([...args, '--title', 'Late', '--amount', '100', '--expired-time', '2020-01-01 00:00:00'])
      expect(past.code).toBe(1)
      expect(past.stderr).toContain('platform error 10506: expiredTime: must be in the future')
    }
  })

  it('asks for the refundNo when a bizRefundNo alone names refunds of two orders', async () => {
    const bizRefundNo = unique('RSAME')
    const refunds: string[] = []
    for (let i = 0; i < 2; i++) {
      const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Twice', '--amount', '100', '--auth-code', '134567890123456789'])
      refunds.push((await c.result<RefundCreateResult>(['refund', 'create', '--trade-no', order.tradeNo, '--amount', '10', '--biz-refund-no', bizRefundNo])).refundNo)
    }
    const ambiguous = await c.run(['query', 'refund', '--biz-refund-no', bizRefundNo])
    expect(ambiguous.code).toBe(1)
    expect(ambiguous.stderr).toContain(`platform error 10506: bizRefundNo ${bizRefundNo} is used on 2 orders`)
    expect(ambiguous.stderr).toContain('give the refundNo of the one you mean')
    expect((await c.result<QueryRefundResult>(['query', 'refund', '--refund-no', refunds[1]])).refundNo).toBe(refunds[1])
  })

  it('ignores reportInfos for walletB and walletD transfers, as the spec says they are unused', async () => {
    const sent = await c.result<TransferResult>(['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088001', '--amount', '100', '--report-info', 'scene=reward'])
    expect(sent.status).toBe('processing')
  })
})

describe('partial allocations can be completed', () => {
  it('splits again after a partial split, over the failed share, and then refuses a third', async () => {
    const good = unique('MCH')
    const bad = `${unique('MCH')}_FAIL`
    const retry = unique('MCH')
    for (const account of [good, bad, retry]) expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', account, '--name', 'Shop'])).code).toBe(0)
    const {bizOrderNo} = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Split', '--amount', '1000', '--auth-code', '134567890123456789', '--allocation'])
    const first = await c.result<AllocCreateResult>(['alloc', '--biz-order-no', bizOrderNo, '--receiver', `MERCHANT_ID:${good}:4.00:Shop`, '--receiver', `MERCHANT_ID:${bad}:3.00:Shop`])
    await advance('1s')
    expect((await c.result<QueryAllocResult>(['query', 'alloc', '--alloc-no', first.allocNo])).status).toBe('partial')
    // the failed receiver's 3 yuan came back: 6 yuan are allocatable, so 6.01 is too much
    expect((await c.result<QueryPayResult>(['query', 'pay', '--biz-order-no', bizOrderNo])).refundableBalance).toBe(600)
    const over = await c.run(['alloc', '--biz-order-no', bizOrderNo, '--receiver', `MERCHANT_ID:${retry}:6.01:Shop`])
    expect(over.code).toBe(1)
    expect(over.stderr).toContain('platform error 20060')
    const second = await c.result<AllocCreateResult>(['alloc', '--biz-order-no', bizOrderNo, '--receiver', `MERCHANT_ID:${retry}:3.00:Shop`])
    await advance('1s')
    expect((await c.result<QueryAllocResult>(['query', 'alloc', '--alloc-no', second.allocNo])).status).toBe('success')
    expect((await c.result<QueryPayResult>(['query', 'pay', '--biz-order-no', bizOrderNo])).refundableBalance).toBe(300)
    const third = await c.run(['alloc', '--biz-order-no', bizOrderNo, '--receiver', `MERCHANT_ID:${retry}:1.00:Shop`])
    expect(third.code).toBe(1)
    expect(third.stderr).toMatch(/platform error 20044: order \S+ already has allocation \S+ \(success\)/)
  })
})

describe('time you can move', () => {
  // its own sandbox, its clock standing still: only the moves of the tests make things due
  let clock: Cli
  let late: Receiver
  /** The sandbox clock's time, in epoch ms, from its `now` (GMT+8, to the second). */
  const at = (state: SandboxClockAdvanceResult) => parseGmt8(state.now)!.getTime()
  let pausedAt = 0
  beforeAll(async () => {
    clock = cli()
    late = await callbackReceiver()
    await clock.json(['sandbox', 'start'])
    const paused = await clock.result<SandboxClockPauseResult>(['sandbox', 'clock', 'pause'])
    expect(paused.paused).toBe(true)
    pausedAt = at(paused)
  })
  afterAll(async () => {
    await late.close()
    await clock.cleanup()
  })

  it('expires orders, settles slow refunds, closes unconfirmed walletA transfers and sends due retries', async () => {
    const open = await clock.result<PayCreateResult>(['pay', 'create', '--title', 'Unpaid', '--amount', '100', '--method', 'walletB_qr', '--notify-url', late.url])
    const gateway = await clock.result<GatewayPrepayResult>(['gateway', 'prepay', '--type', 'cashier', '--title', 'Unpaid', '--amount', '100'])
    const paid = await clock.result<PayCreateResult>(['pay', 'create', '--title', 'Paid', '--amount', '100', '--auth-code', '134567890123456789'])
    const refund = await clock.result<RefundCreateResult>(['refund', 'create', '--trade-no', paid.tradeNo, '--amount', '100', '--reason', 'test:slow'])
    const transfer = await clock.result<TransferResult>(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'oClock', '--amount', '100'])
    const balance = async () => (await clock.result<SandboxBalanceResult>(['sandbox', 'balance'])).balance
    const before = await balance()
    // the receiver refuses the first pay.close, so a retry falls due 15 s later
    late.answers.push({status: 500, body: 'busy'})

    const moved = await clock.result<SandboxClockAdvanceResult>(['sandbox', 'clock', 'advance', '29m'])
    expect(moved).toMatchObject({paused: true})
    expect(at(moved) - pausedAt).toBe(29 * 60_000)
    expect((await clock.result<QueryPayResult>(['query', 'pay', '--order-no', open.orderNo])).status).toBe('progress')
    expect((await clock.result<QueryTransferResult>(['query', 'transfer', '--transfer-no', transfer.transferNo])).status).toBe('close')
    expect(await balance()).toBe(before + 100)
    expect((await clock.result<QueryRefundResult>(['query', 'refund', '--refund-no', refund.refundNo])).status).toBe('success')

    expect((await clock.run(['sandbox', 'clock', 'advance', '1m'])).code).toBe(0)
    expect((await clock.result<QueryPayResult>(['query', 'pay', '--order-no', open.orderNo])).status).toBe('timeout')
    expect((await clock.result<QueryGatewayResult>(['query', 'gateway', '--order-no', gateway.orderNo])).status).toBe('expired')
    // sent before the clock's move answered
    expect(late.received).toHaveLength(1)
    expect(JSON.parse(late.received[0].body).event).toBe('pay.close')
    // the moved clock makes things due, but a callback's resTime stays on the real clock, where receivers check it
    expect(Math.abs(parseGmt8(JSON.parse(late.received[0].body).resTime)!.getTime() - Date.now())).toBeLessThan(300_000)
    await clock.run(['sandbox', 'clock', 'advance', '14s'])
    expect(late.received).toHaveLength(1)
    await clock.run(['sandbox', 'clock', 'advance', '1s'])
    expect(late.received).toHaveLength(2)
    expect(late.received[1].body).toBe(late.received[0].body)
  })

  it('plays the payee of a walletA transfer: confirm and reject', async () => {
    const create = async () => (await clock.result<TransferResult>(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'oPayee', '--amount', '100'])).transferNo
    const accepted = await clock.result<SandboxTransferConfirmResult>(['sandbox', 'transfer', 'confirm', await create()])
    expect(accepted).toMatchObject({status: 'success'})
    const declined = await clock.result<SandboxTransferRejectResult>(['sandbox', 'transfer', 'reject', await create()])
    expect(declined).toMatchObject({status: 'fail', errorMsg: expect.stringContaining('declined')})
    const again = await clock.run(['sandbox', 'transfer', 'confirm', accepted.transferNo])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('is already success')
  })

  it('refuses a duration it cannot read', async () => {
    const bad = await clock.run(['sandbox', 'clock', 'advance', '10 minutes'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('DURATION: "10 minutes" is not a duration')
  })

  it('reads a duration by the rule --wait reads it: a bare number is seconds, units add up', async () => {
    const before = at(await clock.result<SandboxClockAdvanceResult>(['sandbox', 'clock', 'advance', '1ms']))
    expect(at(await clock.result<SandboxClockAdvanceResult>(['sandbox', 'clock', 'advance', '30']))).toBe(before + 30_000)
    expect(at(await clock.result<SandboxClockAdvanceResult>(['sandbox', 'clock', 'advance', '1h30m']))).toBe(before + 30_000 + 90 * 60_000)
  })
})
