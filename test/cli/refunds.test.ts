import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {KeysGenerateResult} from '../../src/commands/keys/generate.js'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {QueryPayResult} from '../../src/commands/query/pay.js'
import type {QueryRefundResult} from '../../src/commands/query/refund.js'
import type {RefundCreateResult} from '../../src/commands/refund/create.js'
import type {RefundSyncResult} from '../../src/commands/refund/sync.js'
import type {RefundsGetResult} from '../../src/commands/refunds/get.js'
import type {RefundsListResult} from '../../src/commands/refunds/list.js'
import type {SandboxStartResult} from '../../src/commands/sandbox/start.js'
import type {SandboxStatusResult} from '../../src/commands/sandbox/status.js'
import {cli, type Cli} from '../helpers/cli.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'

let c: Cli
let receiver: Receiver
let sandboxUrl = ''
beforeAll(async () => {
  c = cli()
  receiver = await callbackReceiver()
  // sessions last 10 minutes of the sandbox clock, which stands still but where the tests move it:
  // refunds settle a second after they are made, the last test moves past a session's end
  sandboxUrl = (await c.result<SandboxStartResult>(['sandbox', 'start', '--token-ttl', '600'])).url
  expect((await c.run(['sandbox', 'clock', 'pause'])).code).toBe(0)
})
afterAll(async () => {
  await receiver.close()
  await c.cleanup()
})

async function paidOrder(amount: number) {
  const created = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Refundable', '--amount', String(amount), '--auth-code', '134567890123456789', '--notify-url', receiver.url])
  expect(created.status).toBe('success')
  return created
}

const balance = async (bizOrderNo: string) => await c.result<QueryPayResult>(['query', 'pay', '--biz-order-no', bizOrderNo])

describe('refund flows', () => {
  it('takes 30 and 70 of 100, refuses a third clearly, and the order ends refunded with balance 0', async () => {
    const order = await paidOrder(100)
    const first = await c.run(['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '30'])
    expect(first.code).toBe(0)
    expect(first.stderr).toMatch(/^bizRefundNo: RF\d{14}[0-9A-F]{8}$/m)
    expect(first.stdout).toMatch(/^status\tprogress$/m)
    const second = await c.result<RefundCreateResult>(['refund', 'create', '--trade-no', order.tradeNo, '--yuan', '0.70', '--biz-refund-no', `${order.bizOrderNo}-2`])
    expect(second).toMatchObject({bizRefundNo: `${order.bizOrderNo}-2`, status: 'progress'})
    const third = await c.run(['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '1'])
    expect(third.code).toBe(1)
    expect(third.stderr).toContain('platform error 20060: refund amount 1 is over the refundable balance 0')
    expect(await balance(order.bizOrderNo)).toMatchObject({refundableBalance: 0, refundStatus: 'refunding'})
    expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
    expect(await balance(order.bizOrderNo)).toMatchObject({refundableBalance: 0, refundStatus: 'refunded'})
    const queried = await c.result<QueryRefundResult>(['query', 'refund', '--biz-refund-no', `${order.bizOrderNo}-2`])
    expect(queried).toMatchObject({status: 'success', amount: 70, orderAmount: 100, bizOrderNo: order.bizOrderNo})
    expect(await c.result<RefundSyncResult>(['refund', 'sync', '--refund-no', queried.refundNo])).toEqual({orderStatus: 'success', adjust: false})
  })

  it('gives a failed refund back to the balance and sends refund.fail', async () => {
    const order = await paidOrder(50)
    await c.result<RefundCreateResult>(['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '50', '--reason', 'test:slow', '--biz-refund-no', `${order.bizOrderNo}-F`])
    expect(await balance(order.bizOrderNo)).toMatchObject({refundableBalance: 0, refundStatus: 'refunding'})
    const settled = await c.run(['sandbox', 'refund', 'settle', `${order.bizOrderNo}-F`, '--fail'])
    expect(settled.code).toBe(0)
    expect(await balance(order.bizOrderNo)).toMatchObject({refundableBalance: 50, refundStatus: 'no_refund'})
    const event = await waitFor(() => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.event === 'refund.fail' && b.data.bizOrderNo === order.bizOrderNo))
    expect(event.data).toMatchObject({status: 'fail', amount: '50'})
  })

  it('checks the rules before sending', async () => {
    const cases: [string[], string][] = [
      [['--amount', '5'], '--trade-no: one of tradeNo / bizOrderNo is required'],
      [['--biz-order-no', 'X', '--amount', '0'], '--amount: must be at least 1'],
      [['--biz-order-no', 'X', '--amount', '1', '--reason', 'r'.repeat(51)], '--reason: must be at most 50 characters'],
      [['--biz-order-no', 'X'], '--amount: is required'],
    ]
    for (const [args, message] of cases) {
      const result = await c.run(['refund', 'create', ...args])
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toContain(message)
    }
  })
})

describe('refund lookups for support staff', () => {
  it('says to log in when there is no session (exit 1)', async () => {
    const result = await c.run(['refunds', 'list'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('not logged in to the management API')
    expect(result.stderr).toContain('log in with: unipay mch login --account ACCOUNT')
  })

  it('lists exactly the matching refunds of its own merchant, walks pages, and notices an expired session', async () => {
    // refunds of its own, whatever ran before: two that succeed and one that fails
    const mine = await paidOrder(100)
    for (const amount of ['30', '70']) expect((await c.run(['refund', 'create', '--biz-order-no', mine.bizOrderNo, '--amount', amount])).code).toBe(0)
    const failing = await paidOrder(50)
    expect((await c.run(['refund', 'create', '--biz-order-no', failing.bizOrderNo, '--amount', '50', '--reason', 'test:fail'])).code).toBe(0)
    // another merchant with a refund of its own, which must never appear
    const keys = await c.result<KeysGenerateResult>(['keys', 'generate', '--out-dir', join(c.dir, 'keys'), '--name', 'm2'])
    expect((await c.run(['sandbox', 'merchants', 'add', 'M2000000002', '--public-key-file', keys.publicKeyFile])).code).toBe(0)
    expect(
      (await c.run(['profile', 'add', 'm2', '--base-url', sandboxUrl, '--mch-no', 'M2000000002', '--private-key-file', keys.privateKeyFile, '--platform-public-key-file', join(c.dir, 'platform.pem')]))
        .code,
    ).toBe(2) // no platform key file yet: refused when added
    const status = await c.result<SandboxStatusResult>(['sandbox', 'status'])
    writeFileSync(join(c.dir, 'platform.pem'), status.running ? status.platformPublicKey : '')
    expect(
      (await c.run(['profile', 'add', 'm2', '--base-url', sandboxUrl, '--mch-no', 'M2000000002', '--private-key-file', keys.privateKeyFile, '--platform-public-key-file', join(c.dir, 'platform.pem')]))
        .code,
    ).toBe(0)
    const other = await c.result<PayCreateResult>(['pay', 'create', '--profile', 'm2', '--title', 'Other', '--amount', '10', '--auth-code', '134567890123456789'])
    expect((await c.run(['refund', 'create', '--profile', 'm2', '--biz-order-no', other.bizOrderNo, '--amount', '10'])).code).toBe(0)

    expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
    const wrong = await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'nope\n'})
    expect(wrong.code).toBe(1)
    const login = await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})
    expect(login.code).toBe(0)
    expect(login.stdout + login.stderr).not.toMatch(/[0-9a-f]{48}/)

    expect((await c.result<RefundsListResult>(['refunds', 'list', '--status', 'progress'])).length).toBeGreaterThan(0)
    expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
    expect(await c.result<RefundsListResult>(['refunds', 'list', '--status', 'progress'])).toEqual([])
    const all = await c.result<RefundsListResult>(['refunds', 'list', '--all', '--size', '100'])
    expect(all.length).toBeGreaterThanOrEqual(3)
    expect(all.every((r) => r.mchNo === 'M1000000001')).toBe(true)
    const ids = (records: RefundsListResult) => records.map((r) => r.id)
    const success = await c.result<RefundsListResult>(['refunds', 'list', '--status', 'success', '--size', '100'])
    expect(ids(success).sort()).toEqual(ids(all.filter((r) => r.status === 'success')).sort())
    expect(ids(await c.result<RefundsListResult>(['refunds', 'list', '--all', '--size', '1']))).toEqual(ids(all))
    expect(await c.result<RefundsListResult>(['refunds', 'list', '--all', '--size', '1', '--limit', '2'])).toHaveLength(2)
    const piped = await c.run(['refunds', 'list', '--status', 'fail'])
    expect(piped.stdout.split('\n')[0]).toMatch(/^id\tmchNo\tappId\trefundNo\tbizRefundNo\t.*\terrorMsg\t.*\tcreateTime$/)
    expect(await c.result<RefundsGetResult>(['refunds', 'get', String(all[0].id)])).toEqual(all[0])

    // the session lasts its 10 minutes of the sandbox clock, and not past them
    expect((await c.run(['sandbox', 'clock', 'advance', '9m'])).code).toBe(0)
    expect((await c.run(['refunds', 'list'])).code).toBe(0)
    expect((await c.run(['sandbox', 'clock', 'advance', '1m'])).code).toBe(0)
    const expired = await c.run(['refunds', 'list'])
    expect(expired.code).toBe(1)
    expect(expired.stderr).toContain('the session has expired: log in again')
  })
})
