// `unipay lookup NUMBER` against a real sandbox: each kind of number, found by its shape first,
// with the calls it costs (counted from --debug, which shows each one); the whole story of an
// order (refunds from the management API, callbacks from the sandbox, the timeline, the next
// steps, each a command that runs as given); nothing matched; one number that is two things;
// and the exit codes.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AllocCreateResult} from '../../src/commands/alloc/index.js'
import type {GatewayPrepayResult} from '../../src/commands/gateway/prepay.js'
import type {LookupResult} from '../../src/commands/lookup.js'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {QueryPayResult} from '../../src/commands/query/pay.js'
import type {RefundCreateResult} from '../../src/commands/refund/create.js'
import type {SandboxCallbacksListResult} from '../../src/commands/sandbox/callbacks/list.js'
import type {TransferResult} from '../../src/commands/transfer/index.js'
import {cli, type Cli} from '../helpers/cli.js'
import {callbackReceiver, freePort, waitFor, type Receiver} from '../helpers/sandbox.js'

let c: Cli
let receiver: Receiver
beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  receiver = await callbackReceiver()
  expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
})
afterAll(async () => {
  await receiver.close()
  await c.cleanup()
})

/** The calls a lookup made, as --debug shows them: method and path. */
async function lookup(...args: string[]) {
  const ran = await c.run<LookupResult>(['lookup', ...args, '--debug'])
  const calls = ran.stderr
    .split('\n')
    .filter((line) => /^\[debug\] (POST|GET) http/.test(line))
    .map((line) => line.replace(/^\[debug\] (\w+) https?:\/\/[^/]+(\/[^\s?]*).*$/, '$1 $2'))
  return {...ran, calls, story: ran.result}
}

const QUERY_PAY = 'POST /unipay/query/pay-order'
const REFUND_PAGE = 'GET /mch/order/refund/page'
const CALLBACKS = 'GET /_sandbox/notifications'

const paidOrder = async (amount = '100', ...extra: string[]) =>
  c.result<PayCreateResult>(['pay', 'create', '--title', 'Lookup', '--amount', amount, '--auth-code', '134567890123456789', '--notify-url', receiver.url, ...extra])

type Order = Awaited<ReturnType<typeof paidOrder>>

async function slowRefund(order: Order, amount: string, ...extra: string[]) {
  return c.result<RefundCreateResult>(['refund', 'create', '--trade-no', order.tradeNo, '--amount', amount, '--reason', 'test:slow', ...extra])
}

/** Every callback of an order delivered (acknowledged by the receiver). */
async function delivered(order: Order, count: number) {
  await waitFor(async () => {
    const callbacks = await c.result<SandboxCallbacksListResult>(['sandbox', 'callbacks', 'list'])
    const mine = callbacks.filter((callback) => JSON.parse(callback.body).data?.tradeNo === order.tradeNo)
    return mine.length === count && mine.every((callback) => callback.state === 'delivered')
  })
}

describe('the story of an order', () => {
  it('a paid order with two refunds (one failed) and its delivered callbacks, by its trade number: three calls', async () => {
    const order = await paidOrder()
    const ok = await slowRefund(order, '30')
    const failed = await slowRefund(order, '20')
    expect((await c.run(['sandbox', 'refund', 'settle', ok.bizRefundNo])).code).toBe(0)
    expect((await c.run(['sandbox', 'refund', 'settle', failed.bizRefundNo, '--fail'])).code).toBe(0)
    // pay.success, refund.success, refund.fail
    await delivered(order, 3)

    const {code, calls, story, stderr} = await lookup(order.tradeNo)
    expect(code, stderr).toBe(0)
    expect(calls).toEqual([QUERY_PAY, REFUND_PAGE, CALLBACKS])
    expect(story!.matched).toEqual([{kind: 'tradeNo', record: 0}])
    const [payment, ...rest] = story!.records
    expect(payment).toMatchObject({kind: 'payment', state: 'verified', source: '/unipay/query/pay-order', matched: 'tradeNo'})
    // the record as the platform sent it: what query pay shows
    expect(payment.data).toEqual(await c.result<QueryPayResult>(['query', 'pay', '--trade-no', order.tradeNo]))
    const refunds = rest.filter((record) => record.kind === 'refund')
    expect(refunds.map((r) => [r.data.bizRefundNo, r.data.status, r.state, r.source]).sort()).toEqual(
      [
        [ok.bizRefundNo, 'success', 'unsigned', '/mch/order/refund/page'],
        [failed.bizRefundNo, 'fail', 'unsigned', '/mch/order/refund/page'],
      ].sort(),
    )
    const callbacks = rest.filter((record) => record.kind === 'callback')
    expect(callbacks.map((r) => [r.data.event, r.data.state, r.state])).toEqual([
      ['pay.success', 'delivered', 'unsigned'],
      ['refund.success', 'delivered', 'unsigned'],
      ['refund.fail', 'delivered', 'unsigned'],
    ])
    const events = story!.timeline.map((event) => event.event)
    expect(events[0]).toBe(`payment ${order.orderNo} created, ¥1.00`)
    expect(events).toContain(`refund ${failed.bizRefundNo} failed: the channel refused the refund (sandbox)`)
    expect(events).toContain('callback pay.success attempt 1: acknowledged 200')
    const times = story!.timeline.map((event) => event.time)
    expect(times).toEqual([...times].sort())
    for (const time of times) expect(time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    expect(story!.nextSteps).toEqual([{why: `refund ${failed.bizRefundNo} failed: the channel refused the refund (sandbox)`}])
  })

  it('reads every page of refunds: one more call per further page', async () => {
    const order = await paidOrder('101')
    for (let i = 0; i < 101; i++) expect((await c.run(['refund', 'create', '--trade-no', order.tradeNo, '--amount', '1', '--reason', 'test:slow'])).code).toBe(0)
    const {calls, story} = await lookup(order.bizOrderNo)
    expect(calls).toEqual([QUERY_PAY, REFUND_PAGE, REFUND_PAGE, CALLBACKS])
    expect(story!.records.filter((record) => record.kind === 'refund')).toHaveLength(101)
    // a refund in progress: its sync, which runs as given
    const step = story!.nextSteps.find((next) => next.command?.startsWith('unipay refund sync --refund-no '))!
    expect(step.why).toMatch(/^refund RF\S+ is in progress: ask the channel$/)
    const sync = await c.run(step.command!.split(' ').slice(1))
    expect(sync.code, sync.stderr).toBe(0)
    expect(sync.stdout).toMatch(/^orderStatus\tprogress$/m)
  })
})

describe('each kind of number, found by its shape: one call per record shown', () => {
  it('a payment order by bizOrderNo, orderNo and tradeNo', async () => {
    const order = await paidOrder()
    for (const [number, kind] of [[order.bizOrderNo, 'bizOrderNo'], [order.orderNo, 'orderNo'], [order.tradeNo, 'tradeNo']]) {
      const {calls, story} = await lookup(number)
      // no gateway order is asked for: pay and gateway orders share the bizOrderNo space, and DP... is a direct payment
      expect(calls, number).toEqual([QUERY_PAY, REFUND_PAGE, CALLBACKS])
      expect(story!.matched, number).toEqual([{kind, record: 0}])
      expect(story!.records[0].data.orderNo).toBe(order.orderNo)
    }
  })

  it('a gateway order by its orderNo, its trade number and its bizOrderNo, with the payment behind it', async () => {
    const created = await c.result<GatewayPrepayResult>(['gateway', 'prepay', '--type', 'cashier', '--title', 'Lookup gateway', '--amount', '300', '--notify-url', receiver.url])
    expect((await c.run(['sandbox', 'pay', created.orderNo, '--method', 'walletB_h5'])).code).toBe(0)
    const gateway = (await lookup(created.orderNo)).story!.records[0].data
    for (const [number, kind] of [[created.orderNo, 'gateway orderNo'], [String(gateway.tradeNo), 'tradeNo'], [created.bizOrderNo, 'bizOrderNo']]) {
      const {calls, story, code} = await lookup(number)
      expect(code).toBe(0)
      // a bizOrderNo with a session: at most three calls, and one more for the sandbox's callbacks
      expect(calls, number).toEqual(['POST /unipay/gateway/query', QUERY_PAY, REFUND_PAGE, CALLBACKS])
      expect(story!.matched, number).toEqual([{kind, record: 0}])
      expect(story!.records.map((record) => [record.kind, record.state])).toEqual([
        ['gateway', 'verified'],
        ['payment', 'verified'],
        ['callback', 'unsigned'],
      ])
    }
  })

  it('a refund by refundNo and bizRefundNo (the CLI\'s RF... and the merchant\'s own), with the order it belongs to', async () => {
    const order = await paidOrder()
    const generated = await slowRefund(order, '10')
    await slowRefund(order, '10', '--biz-refund-no', `R-${order.bizOrderNo}`)
    const REFUND = 'POST /unipay/query/refund-order'
    for (const [number, kind, asks] of [
      [generated.refundNo, 'refundNo', [REFUND]],
      [generated.bizRefundNo, 'bizRefundNo', [REFUND]],
      // a number of no known shape: the merchant's numbers of each kind first, orders before refunds
      [`R-${order.bizOrderNo}`, 'bizRefundNo', [QUERY_PAY, QUERY_PAY, 'POST /unipay/gateway/query', 'POST /unipay/gateway/query', REFUND]],
    ] as const) {
      const found = await lookup(number)
      expect(found.calls, number).toEqual([...asks, QUERY_PAY, CALLBACKS])
      expect(found.story!.matched, number).toEqual([{kind, record: 0}])
      expect(found.story!.records.slice(0, 2).map((record) => [record.kind, record.state])).toEqual([
        ['refund', 'verified'],
        ['payment', 'verified'],
      ])
      expect(found.story!.records[1].data.tradeNo).toBe(order.tradeNo)
    }
  })

  it('a transfer by transferNo, and by bizTransferNo with --channel or without (each channel asked in turn)', async () => {
    const made = await c.result<TransferResult>(['transfer', '--channel', 'walletB', '--amount', '100', '--payee-type', 'user_id', '--payee-account', '2088000000000001'])
    const byNumber = await lookup(made.transferNo)
    expect(byNumber.calls).toEqual(['POST /unipay/query/transfer-order', CALLBACKS])
    expect(byNumber.story!.matched).toEqual([{kind: 'transferNo', record: 0}])
    const withChannel = await lookup(made.bizTransferNo, '--channel', 'walletB')
    expect(withChannel.calls).toEqual(['POST /unipay/query/transfer-order', CALLBACKS])
    const without = await lookup(made.bizTransferNo)
    // walletA first: not there
    expect(without.calls).toEqual(['POST /unipay/query/transfer-order', 'POST /unipay/query/transfer-order', CALLBACKS])
    expect(without.story!.matched).toEqual([{kind: 'bizTransferNo', record: 0}])
    expect(without.story!.tried).toEqual(['query transfer --biz-transfer-no --channel walletA: transfer not found (20041)'])
  })

  it('a split by allocNo and bizAllocNo, with the order it belongs to', async () => {
    const account = `MCH-${Date.now()}`
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', account, '--name', 'Shop'])).code).toBe(0)
    const order = await paidOrder('500', '--allocation')
    const split = await c.result<AllocCreateResult>(['alloc', '--trade-no', order.tradeNo, '--receiver', `MERCHANT_ID:${account}:1.00:Shop`])
    for (const [number, kind] of [[split.allocNo, 'allocNo'], [split.bizAllocNo, 'bizAllocNo']]) {
      const {calls, story} = await lookup(number)
      expect(calls, number).toEqual(['POST /unipay/query/alloc-order', QUERY_PAY, CALLBACKS])
      expect(story!.matched).toEqual([{kind, record: 0}])
      expect(story!.records.slice(0, 2).map((record) => [record.kind, record.data.tradeNo])).toEqual([
        ['alloc', order.tradeNo],
        ['payment', order.tradeNo],
      ])
    }
  })
})

describe('what matches nothing, or two things', () => {
  it('a number that matches nothing says what was tried (exit 1)', async () => {
    const {code, stderr, calls} = await lookup('NO-SUCH-NUMBER-1')
    expect(code).toBe(1)
    expect(stderr).toContain('Error: no order, refund, transfer or split has the number NO-SUCH-NUMBER-1')
    // where it was asked, as a query's "not found" says it
    expect(stderr).toMatch(/asked profile \S+ \(mchNo M\d+\) at http:\/\/127\.0\.0\.1:\d+; --profile NAME asks another\ntried:\n/)
    expect(stderr).toContain('  query pay --biz-order-no: trade not found (20041)')
    expect(stderr).toContain('  query transfer --biz-transfer-no --channel walletD: transfer not found (20041)')
    expect(calls).toHaveLength(12)
    const json = await c.json(['lookup', 'NO-SUCH-NUMBER-1'])
    expect(json.code).toBe(1)
    expect(json.body.error).toMatchObject({kind: 'not-found', exitCode: 1})
    expect(json.body.error.details.tried).toHaveLength(12)
  })

  it('a number that is an order\'s bizOrderNo and another order\'s bizRefundNo: the first match, or with --all both', async () => {
    const shared = `SHARED-${Date.now()}`
    const order = await paidOrder('100', '--biz-order-no', shared)
    const other = await paidOrder()
    await slowRefund(other, '5', '--biz-refund-no', shared)
    const first = await lookup(shared)
    expect(first.story!.matched).toEqual([{kind: 'bizOrderNo', record: 0}])
    const all = await lookup(shared, '--all')
    expect(all.code).toBe(0)
    expect(all.story!.matched.map((match) => [match.kind, all.story!.records[match.record].kind])).toEqual([
      ['bizOrderNo', 'payment'],
      ['bizRefundNo', 'refund'],
    ])
    // and the order that refund belongs to
    expect(all.story!.records.filter((record) => record.kind === 'payment').map((record) => record.data.orderNo)).toEqual([order.orderNo, other.orderNo])
    // every kind asked
    expect(all.calls.filter((call) => call.startsWith('POST /unipay/query/') || call.startsWith('POST /unipay/gateway/'))).toHaveLength(12 + 1)
  })
})

describe('a bizRefundNo two orders hold', () => {
  it('shows both refunds, each with its order (the management API tells them apart); without a session, the platform\'s words and the login (exit 1), never "nothing has the number"', async () => {
    const shared = `DUP-R-${Date.now()}`
    const [one, two] = [await paidOrder(), await paidOrder()]
    await slowRefund(one, '5', '--biz-refund-no', shared)
    await slowRefund(two, '6', '--biz-refund-no', shared)
    const found = await lookup(shared)
    expect(found.code, found.stderr).toBe(0)
    const matched = found.story!.matched.map((match) => found.story!.records[match.record])
    // in the management API's order (newest first): compared by amount
    expect(matched.map((record) => [record.kind, record.state, record.data.tradeNo, record.data.amount]).sort((a, b) => Number(a[3]) - Number(b[3]))).toEqual([
      ['refund', 'verified', one.tradeNo, 5],
      ['refund', 'verified', two.tradeNo, 6],
    ])
    expect(found.story!.matched.map((match) => match.kind)).toEqual(['bizRefundNo', 'bizRefundNo'])
    expect(found.story!.records.filter((record) => record.kind === 'payment').map((record) => record.data.tradeNo).sort()).toEqual([one.tradeNo, two.tradeNo].sort())

    expect((await c.run(['mch', 'logout'])).code).toBe(0)
    try {
      const alone = await c.run(['lookup', shared])
      expect(alone.code).toBe(1)
      expect(alone.stderr).not.toContain('nothing')
      expect(alone.stderr).not.toContain('no order, refund, transfer or split has')
      expect(alone.stderr).toContain(`platform error 10506: bizRefundNo ${shared} is used on 2 orders`)
      expect(alone.stderr).toContain(`several orders hold refund ${shared}: log in for lookup to show each (unipay mch login --account ACCOUNT`)
    } finally {
      expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
    }
  })
})

describe('exit codes and bad input', () => {
  it('3 when an answer shown failed verification: shown, marked, with the key that checked it', async () => {
    const order = await paidOrder()
    const keys = await c.json(['keys', 'generate', '--out-dir', `${c.dir}/keys`, '--name', 'wrong'])
    const ran = await c.run<LookupResult>(['lookup', order.tradeNo, '--platform-public-key', keys.body.data.publicKeyFile])
    expect(ran.code).toBe(3)
    expect(ran.stdout).toMatch(/^payment\tDP\d+\tanswer\tfailed verification$/m)
    expect(ran.stdout).toMatch(/^payment\tDP\d+\tproblem\tthe answer's signature does not verify with the platform public key/m)
    expect(ran.stdout).toMatch(new RegExp(`^payment\\t${order.orderNo}\\tbizOrderNo\\t${order.bizOrderNo}$`, 'm'))
    expect(ran.stderr).toContain(`failed verification (marked): checked with the platform key file ${keys.body.data.publicKeyFile} (${keys.body.data.fingerprint}`)
    const json = await c.json(['lookup', order.tradeNo, '--platform-public-key', keys.body.data.publicKeyFile])
    expect(json.code).toBe(3)
    expect(json.body).toMatchObject({ok: false, exitCode: 3})
    expect(json.body.data.records[0]).toMatchObject({kind: 'payment', state: 'failed verification', data: {orderNo: order.orderNo}})
  })

  it('4 when the platform cannot be reached', async () => {
    const ran = await c.run(['lookup', 'P20261127093652AFC15997', '--base-url', `http://127.0.0.1:${await freePort()}`, '--timeout', '1'])
    expect(ran.code).toBe(4)
    expect(ran.stderr).toMatch(/could not|refused|ECONNREFUSED/i)
  })

  it('2 for a number that cannot be one, or an unknown channel, before anything is asked', async () => {
    for (const [number, message] of [
      ['', 'NUMBER: is empty'],
      ['  ', 'NUMBER: is empty'],
      ['X'.repeat(101), 'NUMBER: is 101 characters long; no number of the platform is longer than 100'],
      ['P2026\u0007', 'NUMBER: holds a control character'],
    ]) {
      const ran = await lookup(number)
      expect(ran.code, JSON.stringify(number)).toBe(2)
      expect(ran.stderr).toContain(message)
      expect(ran.calls).toEqual([])
    }
    const channel = await c.run(['lookup', 'TF1', '--channel', 'walletC'])
    expect(channel.code).toBe(2)
  })
})

describe('the next step, as a command that runs as given', () => {
  it('a payment still in progress five minutes after it was created, by the sandbox\'s clock: pay sync', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Waiting', '--amount', '100'])
    const fresh = await lookup(order.bizOrderNo)
    // a payment never paid has no refunds to ask for; the sandbox's clock says how old it is
    expect(fresh.calls).toEqual([QUERY_PAY, CALLBACKS, 'GET /_sandbox/clock'])
    expect(fresh.story!.nextSteps).toEqual([])
    expect((await c.run(['sandbox', 'clock', 'advance', '6m'])).code).toBe(0)
    const {story} = await lookup(order.bizOrderNo)
    expect(story!.nextSteps).toEqual([
      {why: `payment ${order.orderNo} is still in progress 6 minutes after it was created: ask the channel`, command: `unipay pay sync --order-no ${order.orderNo}`},
    ])
    const sync = await c.run(story!.nextSteps[0].command!.split(' ').slice(1))
    expect(sync.code, sync.stderr).toBe(0)
  })
})
