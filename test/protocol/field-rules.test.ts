import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {checkRules, fastEndpoints, payRules, queryPayRules, queryTransferRules, transferRowRules, transferRules} from '../../src/protocol/field-rules.js'
import {checkFields, payFields, queryPayFields, queryTransferFields, transferFields, transferRowFields} from '../../src/protocol/schemas.js'

// The zod-free rules must say exactly what the zod schemas say, problem for problem, so the
// client (fast rules) and the sandbox (zod) never disagree about a request.
const valid = {mchNo: 'M1', reqId: 'R1', reqTime: '2025-01-01 10:00:00', bizOrderNo: 'B1', title: 'Coffee', amount: 100}
const long = (n: number) => 'x'.repeat(n)
const values: unknown[] = [
  undefined, null, '', 'x', 'CNY', 'cny', long(33), long(65), long(101), long(201), long(2049), 'https://shop.example.com/n', 'ftp://x', '{"a":1}', '{',
  '2025-01-01 10:00:00', '2025-13-01 10:00:00', 'walletA_jsapi', 'walletB_barcode', 'nope', '134567890123456789', '2512', '99',
  0, 1, 100, -1, 1.5, 2 ** 60, 9_999_999_999, 10_000_000_000, Number.NaN, Number.POSITIVE_INFINITY, true, false,
  [], ['a'], [long(33), 5], Array(11).fill('a'), [null], [{}], [[]], [5], Array(51).fill({}),
  [{goodsId: 'G', goodsName: 'N', quantity: 1, unitPrice: 0}], [{goodsId: long(33), goodsName: 5, quantity: 0, unitPrice: 1.5}],
  {}, {longitude: 'x'}, {longitude: 1.5, storeNo: long(65)}, {terminalNo: null},
]
// rules across fields depend on these, so every value is also tried beside each of them
const contexts: Record<string, unknown>[] = [{}, {method: 'walletA_jsapi'}, {method: 'walletB_barcode'}, {authCode: '2512'}, {method: 'walletA_barcode', authCode: '2512'}]

function compare(rules: Parameters<typeof checkRules>[0], schema: Parameters<typeof checkFields>[0], base: Record<string, unknown>, fields: string[], tried = {values, contexts}) {
  let compared = 0
  for (const context of tried.contexts) {
    for (const field of fields) {
      for (const value of tried.values) {
        const body = {...base, ...context, [field]: value}
        expect({body, problems: checkRules(rules, body)}).toEqual({body, problems: checkFields(schema, body)})
        compared++
      }
    }
  }
  return compared
}

describe('fast field rules agree with the zod schemas', () => {
  it('pay: every field, every kind of value, with and without the rules across fields', () => {
    const fields = [...Object.keys(payFields.shape), 'unknownField']
    expect(compare(payRules, payFields, valid, fields)).toBeGreaterThan(5000)
  })

  // nested objects field by field: a goodsDetail item's and the terminal's rules, lengths at their limits
  it('pay: every field of a goodsDetail item and of the terminal, every kind of value', () => {
    const nestedValues = [...values, long(32), long(64), long(256), long(257), long(400), long(401), long(1000), long(1001), 99_999_999, 100_000_000, -0.5]
    const item = payFields.shape.goodsDetail.unwrap().element
    const terminal = payFields.shape.terminal.unwrap()
    const base = {goodsId: 'G', goodsName: 'N', quantity: 1, unitPrice: 0}
    let compared = 0
    for (const field of [...Object.keys(item.shape), 'unknownField']) {
      for (const value of nestedValues) {
        const body = {...valid, goodsDetail: [base, {...base, [field]: value}]}
        expect({body, problems: checkRules(payRules, body)}).toEqual({body, problems: checkFields(payFields, body)})
        compared++
      }
    }
    for (const field of [...Object.keys(terminal.shape), 'unknownField']) {
      for (const value of nestedValues) {
        const body = {...valid, terminal: {terminalNo: 'T1', [field]: value}}
        expect({body, problems: checkRules(payRules, body)}).toEqual({body, problems: checkFields(payFields, body)})
        compared++
      }
    }
    expect(compared).toBeGreaterThan(900)
  })

  it('query pay: every field, every kind of value', () => {
    const base = {mchNo: 'M1', reqId: 'R1', reqTime: '2025-01-01 10:00:00'}
    const fields = Object.keys(queryPayFields.shape)
    compare(queryPayRules, queryPayFields, base, fields)
    compare(queryPayRules, queryPayFields, {...base, orderNo: 'P1'}, fields)
  })

  // transfers: a batch checks every row with them, and the sandbox every transfer
  const transferValues: unknown[] = [
    ...values, 'walletA', 'walletB', 'walletD', 'walletC', 'openid', 'user_id', 'open_id', 'login_name', 'phone', 'Jane', 29, 30, 199_999, 200_000, 10_000_000_001,
    [{infoType: 'T', infoContent: 'C'}], [{infoType: '', infoContent: long(1025)}], [{infoType: long(65)}], [{}, 5],
  ]
  const transferContexts: Record<string, unknown>[] = [
    {}, {channel: 'walletA', payeeType: 'openid'}, {channel: 'walletA', payeeType: 'openid', amount: 20}, {channel: 'walletA', payeeType: 'openid', amount: 300_000},
    {channel: 'walletA', payeeType: 'openid', payeeName: 'Jane', transferScene: 'S'}, {channel: 'walletD', payeeType: 'user_id'}, {payeeType: 'phone'},
  ]
  const transferRow = {channel: 'walletB', channelMchNo: 'CM1', bizTransferNo: 'K1', amount: 100, payeeType: 'user_id', payeeAccount: '2088'}

  it('transfer: every field, every kind of value, with and without the channel rules', () => {
    const base = {mchNo: 'M1', reqId: 'R1', reqTime: '2025-01-01 10:00:00', ...transferRow}
    const fields = [...Object.keys(transferFields.shape), 'unknownField']
    expect(compare(transferRules, transferFields, base, fields, {values: transferValues, contexts: transferContexts})).toBeGreaterThan(5000)
  })

  it('a batch row: the same rules without the common fields', () => {
    compare(transferRowRules, transferRowFields, transferRow, Object.keys(transferRowFields.shape), {values: transferValues, contexts: transferContexts})
  })

  it('query transfer: every field, every kind of value', () => {
    const base = {mchNo: 'M1', reqId: 'R1', reqTime: '2025-01-01 10:00:00'}
    const fields = Object.keys(queryTransferFields.shape)
    for (const start of [base, {...base, transferNo: 'T1'}, {...base, bizTransferNo: 'K1'}, {...base, bizTransferNo: 'K1', channel: 'walletB'}]) {
      compare(queryTransferRules, queryTransferFields, start, fields)
    }
  })

  it('declare the same fields as the schemas (what --data may carry, without loading zod)', () => {
    expect(fastEndpoints.transfer.fieldNames).toEqual(Object.keys(transferFields.shape))
    expect(fastEndpoints.queryTransfer.fieldNames).toEqual(Object.keys(queryTransferFields.shape))
    expect(fastEndpoints.pay.fieldNames).toEqual(Object.keys(payFields.shape))
    expect(fastEndpoints.queryPay.fieldNames).toEqual(Object.keys(queryPayFields.shape))
    expect(endpoints.pay.fieldNames).toEqual(Object.keys(payFields.shape))
    expect(endpoints.queryPay.fieldNames).toEqual(Object.keys(queryPayFields.shape))
  })
})
