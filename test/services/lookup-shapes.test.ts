// `lookup`'s table from a number's shape to its likely kinds, held to the generators it was
// written from: the CLI's own business numbers (generateBusinessNo, the batch's derived ones) and
// the local sandbox's (created on a sandbox in this process). The order of the rest: fewest calls.
import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {generateBusinessNo} from '../../src/services/call.js'
import {gatewayPrePay} from '../../src/services/gateway.js'
import {createPayment} from '../../src/services/pay.js'
import {createTransfer} from '../../src/services/transfer.js'
import {derivedBizTransferNo} from '../../src/services/batch/file.js'
import {asksFor, isDirectPayment, stampOf} from '../../src/services/lookup/shapes.js'
import {useTestSandbox} from '../helpers/sandbox.js'

const first = (number: string) => asksFor(number).asks.slice(0, asksFor(number).likely).map((ask) => `${ask.query} ${ask.field}${'channel' in ask ? ` ${ask.channel}` : ''}`)
const AT = new Date('2026-11-27T01:36:52Z')

describe('the CLI\'s own numbers', () => {
  it.each([
    ['P', ['pay bizOrderNo', 'gateway bizOrderNo']],
    ['G', ['gateway bizOrderNo', 'pay bizOrderNo']],
    ['E', ['pay bizOrderNo']],
    ['RF', ['refund bizRefundNo', 'refund refundNo']],
    ['ER', ['refund bizRefundNo']],
    ['AL', ['alloc bizAllocNo']],
    ['TF', ['transfer bizTransferNo walletA', 'transfer bizTransferNo walletB', 'transfer bizTransferNo walletD']],
  ])('%s... (generateBusinessNo) is asked as %j first', (prefix, asks) => {
    expect(first(generateBusinessNo(prefix, AT))).toEqual(asks)
  })

  it('a batch row\'s BT... is a bizTransferNo; --channel makes it one call', () => {
    const number = derivedBizTransferNo('ab'.repeat(32), 7)
    expect(first(number)).toEqual(['transfer bizTransferNo walletA', 'transfer bizTransferNo walletB', 'transfer bizTransferNo walletD'])
    expect(asksFor(number, 'walletB').asks.slice(0, 1)).toEqual([{query: 'transfer', field: 'bizTransferNo', channel: 'walletB'}])
  })
})

describe('the sandbox\'s numbers', () => {
  const sandbox = useTestSandbox()

  it('each shape names its kind, carries its creation time, and a direct payment is told from a gateway trade', async () => {
    const {client} = sandbox
    const before = Math.floor(Date.now() / 1000) * 1000
    const pay = (await createPayment(client, {title: 'Shape', amount: 100, authCode: '134567890123456789'})).response!.data
    // a refund without bizRefundNo: the sandbox makes one (R...)
    const refund = await sandbox.send(endpoints.refund, {tradeNo: pay.tradeNo, amount: 10})
    const gateway = (await gatewayPrePay(client, {title: 'Shape', amount: 100, gatewayPayType: 'cashier'})).response!.data
    const transfer = (await createTransfer(client, {channel: 'walletB', channelMchNo: 'CM_SANDBOX', amount: 100, payeeType: 'user_id', payeeAccount: '2088000000000001'})).response!.data
    expect(first(pay.orderNo)).toEqual(['pay orderNo'])
    expect(first(pay.tradeNo)).toEqual(['pay orderNo'])
    expect(first(refund.data.refundNo)).toEqual(['refund refundNo', 'refund bizRefundNo'])
    expect(first(refund.data.bizRefundNo)).toEqual(['refund bizRefundNo'])
    expect(first(gateway.orderNo)).toEqual(['gateway orderNo'])
    expect(first(`GT${gateway.orderNo.slice(2)}`)).toEqual(['gateway orderNo'])
    expect(first(transfer.transferNo)).toEqual(['transfer transferNo'])
    expect(isDirectPayment(pay.orderNo)).toBe(true)
    expect(isDirectPayment(gateway.orderNo)).toBe(false)
    // made between the first call and the last: the stamp is the second it was made in
    const after = Date.now()
    for (const number of [pay.orderNo, pay.tradeNo, refund.data.refundNo, gateway.orderNo, transfer.transferNo]) {
      expect(stampOf(number)!.getTime(), number).toBeGreaterThanOrEqual(before)
      expect(stampOf(number)!.getTime(), number).toBeLessThanOrEqual(after)
    }
  })
})

describe('what no shape tells', () => {
  it('is asked in the order that costs fewest calls: the merchant\'s number of each kind first, a bizTransferNo without channel last', () => {
    const {asks, likely} = asksFor('ORDER-42')
    expect(likely).toBe(0)
    expect(asks.map((ask) => `${ask.query} ${ask.field}${'channel' in ask ? ` ${ask.channel}` : ''}`)).toEqual([
      'pay bizOrderNo',
      'pay orderNo',
      'gateway bizOrderNo',
      'gateway orderNo',
      'refund bizRefundNo',
      'refund refundNo',
      'alloc bizAllocNo',
      'alloc allocNo',
      'transfer transferNo',
      'transfer bizTransferNo walletA',
      'transfer bizTransferNo walletB',
      'transfer bizTransferNo walletD',
    ])
    // a likely lookup is never asked twice
    const refundNo = asksFor('RF20261127093658000002').asks
    expect(refundNo.filter((ask) => ask.query === 'refund')).toHaveLength(2)
    expect(stampOf('ORDER-42')).toBeUndefined()
  })
})
