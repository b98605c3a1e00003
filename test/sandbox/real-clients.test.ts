// Bodies as the official SDKs send them (written out, signed by an independent signer), and
// what the client then needs: accepted, with the meaning the SDK intended.
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {checkFields} from '../../src/protocol/schemas.js'
import {oracleVerify, sdkCommon, sdkSigned, sdkString, unique} from '../helpers/sdk.js'
import {removeDir, testSandbox, useTestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

async function sdkPost(path: string, body: Record<string, unknown>) {
  const answer = await t.post(path, sdkSigned(body, t.merchantPem))
  const read = readEnvelope(answer.text, t.client.platformKey)
  expect(read.verified).toBe(true)
  // the answer's signature (made on the sandbox's thread pool) checked by the outside signer too
  expect(oracleVerify(read.canonical, read.signature!, t.sandbox.runtime.platformPublicKeyPem)).toBe(true)
  return answer.body
}

/** A pay as the Node SDK sends it: unset optional fields as null, its own `source` field. */
const sdkPay = (extra: Record<string, unknown> = {}) => ({
  ...sdkCommon(),
  channelMchNo: null,
  bizOrderNo: unique('B'),
  title: 'Coffee',
  description: null,
  amount: 100,
  currency: null,
  method: 'walletA_qr',
  attach: null,
  notifyUrl: null,
  returnUrl: null,
  expiredTime: null,
  goodsDetail: null,
  source: 'unipay-node-sdk/2.3.1',
  ...extra,
})

describe('requests as real clients send them', () => {
  it('accepts a pay with nulls for unset fields and the SDK\'s own `source`', async () => {
    const answer = await sdkPost(endpoints.pay.path, sdkPay())
    expect(answer).toMatchObject({code: 0, data: {status: 'progress'}})
    const queried = await t.send(endpoints.queryPay, {orderNo: answer.data.orderNo})
    expect(queried.data.attach ?? undefined).toBeUndefined()
    expect(queried.data).not.toHaveProperty('source')
  })

  it('treats PHP\'s empty `terminal` ([]) as absent', async () => {
    const answer = await sdkPost(endpoints.pay.path, sdkPay({terminal: [], goodsDetail: []}))
    expect(answer.code).toBe(0)
  })

  it('closes an order with a close sent without useCancel (the default false applies)', async () => {
    const created = await sdkPost(endpoints.pay.path, sdkPay())
    const closed = await sdkPost(endpoints.close.path, {...sdkCommon(), orderNo: created.data.orderNo, bizOrderNo: null})
    expect(closed).toMatchObject({code: 0, msg: 'success'})
    const queried = await t.send(endpoints.queryPay, {orderNo: created.data.orderNo})
    expect(queried.data.status).toBe('close')
  })

  it('refunds with reason and bizRefundNo null', async () => {
    const created = await sdkPost(endpoints.pay.path, sdkPay({method: null, authCode: '134567890123456789'}))
    expect(created.data.status).toBe('success')
    const refund = await sdkPost(endpoints.refund.path, {...sdkCommon(), tradeNo: created.data.tradeNo, bizOrderNo: null, amount: 40, reason: null, bizRefundNo: null})
    expect(refund).toMatchObject({code: 0, data: {status: 'progress'}})
  })

  it('says "is required" for a null required field', async () => {
    const answer = await sdkPost(endpoints.pay.path, sdkPay({title: null}))
    expect(answer).toMatchObject({code: 10506})
    expect(answer.msg).toBe('title: is required')
  })

  it('refuses tampering with any received field, the SDK\'s own ones included', async () => {
    for (const [field, value] of [['source', 'other-sdk/1.0'], ['amount', 101], ['attach', 'x']] as const) {
      const body = sdkSigned(sdkPay(), t.merchantPem)
      const answer = await t.post(endpoints.pay.path, {...body, [field]: value})
      expect(answer.body.code, field).toBe(20052)
      expect(answer.body.msg).toContain(sdkString({...body, [field]: value}))
    }
    const signed = sdkSigned(sdkPay(), t.merchantPem)
    const {source: _dropped, ...withoutSource} = signed
    expect((await t.post(endpoints.pay.path, withoutSource)).body.code).toBe(20052)
    // a close signed without useCancel and sent with it is a different request
    const closeBody = sdkSigned({...sdkCommon(), bizOrderNo: 'B-any'}, t.merchantPem)
    expect((await t.post(endpoints.close.path, {...closeBody, useCancel: false})).body.code).toBe(20052)
  })

  it('refuses a refund without bizRefundNo replayed after a restart, so it is not carried out twice', async () => {
    const own = await testSandbox()
    try {
      const pem = readFileSync(own.sandbox.runtime.merchant.privateKeyFile, 'utf8')
      const paid = await own.send(endpoints.pay, {bizOrderNo: unique('B'), title: 'Tea', amount: 100, authCode: '134567890123456789'})
      const refund = sdkSigned({...sdkCommon(), tradeNo: paid.data.tradeNo, amount: 30, reason: null}, pem)
      expect((await own.post(endpoints.refund.path, refund)).body.code).toBe(0)
      await own.close()
      const restarted = await testSandbox({}, own.dataDir)
      try {
        const replayed = await restarted.post(endpoints.refund.path, refund)
        expect(replayed.body).toMatchObject({code: 10409})
        expect(replayed.body.msg).toMatch(/was already used/)
        expect((await restarted.send(endpoints.queryPay, {orderNo: paid.data.orderNo})).data.refundableBalance).toBe(70)
      } finally {
        await restarted.close()
      }
    } finally {
      removeDir(own.dataDir)
    }
  })

  it('allocates cents to a merchant set to cents, and answers in cents throughout', async () => {
    const own = await testSandbox({pausedClock: true})
    try {
      const pem = readFileSync(own.sandbox.runtime.merchant.privateKeyFile, 'utf8')
      const set = await own.post('/_sandbox/merchants/settings', {mchNo: 'M1000000001', allocAmountUnit: 'cents'})
      expect(set.body).toEqual({mchNo: 'M1000000001', allocAmountUnit: 'cents'})
      expect((await own.post('/_sandbox/merchants/settings', {mchNo: 'M1000000001', allocAmountUnit: 'fen'})).status).toBe(400)
      await own.post('/_sandbox/receivers', {mchNo: 'M1000000001', receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: 'Shop Ltd'})
      const paid = await own.send(endpoints.pay, {bizOrderNo: unique('B'), title: 'Split', amount: 1000, authCode: '134567890123456789', allocation: true})
      const bizAllocNo = unique('AL')
      // the SDK's receivers: amount 60 meaning 0.60 yuan (a walletA merchant receiver needs its name: spec, alloc receiver item)
      const alloc = sdkSigned({...sdkCommon(), bizAllocNo, tradeNo: paid.data.tradeNo, bizOrderNo: null, title: null, receivers: [{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: 'Shop Ltd', amount: 60}], attach: null, notifyUrl: null}, pem)
      expect((await own.post(endpoints.alloc.path, alloc)).body.code).toBe(0)
      expect((await own.send(endpoints.queryPay, {orderNo: paid.data.orderNo})).data.refundableBalance).toBe(940)
      const query = await own.send(endpoints.queryAlloc, {bizAllocNo})
      expect(query.data).toMatchObject({amount: 60, details: [expect.objectContaining({amount: 60})]})
      // yuan amounts are not whole cents: refused, not silently read as cents
      const yuanBody = sdkSigned({...sdkCommon(), bizAllocNo: unique('AL'), tradeNo: paid.data.tradeNo, receivers: [{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: 'Shop Ltd', amount: 0.6}]}, pem)
      expect((await own.post(endpoints.alloc.path, yuanBody)).body).toMatchObject({code: 10506, msg: 'receivers[0].amount: must be a whole number'})
    } finally {
      await own.close()
      removeDir(own.dataDir)
    }
  })

  it('the CLI\'s shared validator takes null and [] as absent too', () => {
    expect(checkFields(endpoints.pay.fields, sdkPay({terminal: [], goodsDetail: [{goodsId: 'g', goodsName: 'n', quantity: 1, unitPrice: 1, category: null}]}))).toEqual([])
    expect(checkFields(endpoints.pay.fields, sdkPay({amount: null}))).toEqual([{field: 'amount', message: 'is required'}])
  })
})
