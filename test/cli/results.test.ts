// What a command returns is what --json prints: the `data` of the document (for a dry run, the
// document but `ok`), read the way results are (number literals made plain). Tests assert on
// the returned result, so the two must not drift apart.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AllocCreateResult} from '../../src/commands/alloc/index.js'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {RefundCreateResult} from '../../src/commands/refund/create.js'
import {parseJson, toPlain} from '../../src/protocol/json.js'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
beforeAll(() => {
  c = cli()
})
afterAll(async () => {
  await c.cleanup()
})

/** Runs once with --json in this process: the returned result beside the printed document. */
async function both(args: string[]): Promise<{result: unknown; printed: Record<string, unknown>}> {
  const ran = await c.run([...args, '--json'])
  expect(ran.code, ran.stderr).toBe(0)
  return {result: ran.result, printed: toPlain(parseJson(ran.stdout)) as Record<string, unknown>}
}

describe('a command returns the data that --json prints', () => {
  it('for the calls of a payment\'s life, a split, a transfer, a gateway order and the compatibility module', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Drift', '--amount', '300', '--allocation', '--method', 'walletA_qr'])
    await c.run(['sandbox', 'pay', order.orderNo])
    const refund = await c.result<RefundCreateResult>(['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '100'])
    await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', 'M-DRIFT', '--name', 'Drift Ltd'])
    const split = await c.result<AllocCreateResult>(['alloc', '--biz-order-no', order.bizOrderNo, '--receiver', 'MERCHANT_ID:M-DRIFT:1.00:Drift Ltd'])
    const commands = [
      ['pay', 'create', '--title', 'Drift', '--amount', '100'],
      ['query', 'pay', '--biz-order-no', order.bizOrderNo],
      ['pay', 'sync', '--biz-order-no', order.bizOrderNo],
      ['query', 'refund', '--biz-refund-no', refund.bizRefundNo],
      ['query', 'alloc', '--biz-alloc-no', split.bizAllocNo],
      ['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088000000000001', '--amount', '100'],
      ['gateway', 'prepay', '--type', 'cashier', '--title', 'Drift', '--amount', '100'],
      ['epay', 'v2', 'create', '--name', 'Drift', '--money', '1.00'],
      ['ping'],
      ['lookup', order.tradeNo],
    ]
    for (const args of commands) {
      const {result, printed} = await both(args)
      expect(result, args.join(' ')).toEqual(printed.data)
      expect(result, args.join(' ')).toBeTruthy()
    }
  })

  it('for a close, whose answer has no data', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Drift', '--amount', '1'])
    const {result, printed} = await both(['pay', 'close', '--biz-order-no', order.bizOrderNo])
    expect(result).toBeNull()
    expect(printed.data).toBeNull()
  })

  it('for a dry run, the document but ok: the request beside dryRun: true, and the number an epay create would use', async () => {
    const runs = [['pay', 'create', '--title', 'Drift', '--amount', '100'], ['epay', 'v1', 'query', '--out-trade-no', 'E1'], ['epay', 'v2', 'create', '--name', 'Drift', '--money', '1.00']]
    for (const args of runs) {
      const {result, printed} = await both([...args, '--dry-run'])
      const {ok, ...document} = printed
      expect(ok).toBe(true)
      expect(result, args.join(' ')).toEqual(document)
    }
    expect((await both([...runs[2], '--dry-run'])).printed.outTradeNo).toEqual(expect.any(String))
  })

  it('for commands that read local state or drive the sandbox', async () => {
    for (const args of [['sandbox', 'status'], ['profile', 'list'], ['profile', 'show'], ['sandbox', 'faults', 'add', 'latency', '--latency', '5'], ['sandbox', 'faults', 'list'], ['sandbox', 'faults', 'clear'], ['sandbox', 'logs', '--limit', '3']]) {
      const {result, printed} = await both(args)
      expect(result, args.join(' ')).toEqual(printed.data)
    }
  })
})
