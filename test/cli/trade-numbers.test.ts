// The numbers support staff are handed: a trade number (refund records and callbacks carry it),
// a gateway order number or its trade number. Wherever an orderNo is asked the platform takes
// them (protocol notes §3, §4), and the CLI believes the answer when it names the order by any
// of its numbers.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {GatewayPrepayResult} from '../../src/commands/gateway/prepay.js'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {PaySyncResult} from '../../src/commands/pay/sync.js'
import type {QueryGatewayResult} from '../../src/commands/query/gateway.js'
import type {QueryPayResult} from '../../src/commands/query/pay.js'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
beforeAll(() => {
  c = cli({sandbox: 'in-process'})
})
afterAll(async () => {
  await c.cleanup()
})

describe('a trade number where an order number is asked', () => {
  it('query pay by --order-no T... and --trade-no T... shows the order, verified', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Trade', '--amount', '100', '--auth-code', '134567890123456789'])
    expect(order.tradeNo).toMatch(/^T\d{20}$/)
    for (const flag of ['--order-no', '--trade-no']) {
      const found = await c.run<QueryPayResult>(['query', 'pay', flag, order.tradeNo])
      expect(found.code, found.stderr).toBe(0)
      expect(found.stderr).toContain('✓ answer signature verified')
      expect(found.result).toMatchObject({orderNo: order.orderNo, tradeNo: order.tradeNo, bizOrderNo: order.bizOrderNo})
    }
    // the request names the trade as the endpoint's orderNo: the platform has no tradeNo field there
    const request = await c.dryRun<QueryPayResult>(['query', 'pay', '--trade-no', order.tradeNo])
    expect(request.request.body).toMatchObject({orderNo: order.tradeNo})
    expect(request.request.body).not.toHaveProperty('tradeNo')
    const both = await c.run(['query', 'pay', '--trade-no', order.tradeNo, '--order-no', order.orderNo])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--trade-no=')
  })

  it('pay sync and pay close take the trade number', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Trade close', '--amount', '100'])
    expect(await c.result<PaySyncResult>(['pay', 'sync', '--order-no', order.tradeNo])).toEqual({orderStatus: 'progress', adjust: false})
    const closed = await c.run(['pay', 'close', '--order-no', order.tradeNo])
    expect(closed.code, closed.stderr).toBe(0)
    expect(await c.result<QueryPayResult>(['query', 'pay', '--trade-no', order.tradeNo])).toMatchObject({status: 'close'})
  })

  it('a gateway order: query gateway and query pay by GW... and GT..., pay close by GW...', async () => {
    const created = await c.result<GatewayPrepayResult>(['gateway', 'prepay', '--type', 'cashier', '--title', 'Gateway trade', '--amount', '300'])
    expect((await c.run(['sandbox', 'pay', created.orderNo, '--method', 'walletB_h5'])).code).toBe(0)
    const gateway = await c.result<QueryGatewayResult>(['query', 'gateway', '--order-no', created.orderNo])
    expect(gateway.tradeNo).toMatch(/^GT\d{20}$/)
    const byTrade = await c.run<QueryGatewayResult>(['query', 'gateway', '--order-no', gateway.tradeNo!])
    expect(byTrade.code, byTrade.stderr).toBe(0)
    expect(byTrade.result).toMatchObject({orderNo: created.orderNo, status: 'paid'})
    for (const number of [created.orderNo, gateway.tradeNo!]) {
      const payment = await c.run<QueryPayResult>(['query', 'pay', '--order-no', number])
      expect(payment.code, payment.stderr).toBe(0)
      expect(payment.result).toMatchObject({bizOrderNo: created.bizOrderNo, tradeNo: gateway.tradeNo, status: 'success'})
    }
    const unpaid = await c.result<GatewayPrepayResult>(['gateway', 'prepay', '--type', 'cashier', '--title', 'Gateway close', '--amount', '300'])
    const closed = await c.run(['pay', 'close', '--order-no', unpaid.orderNo])
    expect(closed.code, closed.stderr).toBe(0)
    expect(await c.result<QueryGatewayResult>(['query', 'gateway', '--order-no', unpaid.orderNo])).toMatchObject({status: 'closed'})
  })
})
