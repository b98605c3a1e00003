import {constants, createPublicKey, publicEncrypt} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {loadPrivateKey} from '../../src/protocol/keys.js'
import {controlHeaders, useCallbackReceiver, useTestSandbox} from '../helpers/sandbox.js'
import {newKeyPair} from '../helpers/sandbox-keys.js'

// the sandbox clock stands still: refunds settle when a test moves it (1 s does) or settles them
const t = useTestSandbox({pausedClock: true, tokenTtlSeconds: 600})
const receiver = useCallbackReceiver()

let seq = 0
async function paidOrder(amount = 100): Promise<{orderNo: string; bizOrderNo: string; tradeNo: string}> {
  const created = await t.send(endpoints.pay, {bizOrderNo: `RO${++seq}-${Date.now()}`, title: 'x', amount, authCode: '134567890123456789', notifyUrl: receiver.url})
  expect(created.data.status).toBe('success')
  return created.data
}
const order = (orderNo: string) => t.send(endpoints.queryPay, {orderNo}).then((a) => a.data)
const refund = (ref: string) => t.send(endpoints.queryRefund, {refundNo: ref}).then((a) => a.data)

describe('refunds', () => {
  it('takes 30 then 70 of 100, refuses a third, and the order ends refunded with balance 0', async () => {
    const paid = await paidOrder()
    const first = await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 30, bizRefundNo: 'A1'})
    expect(first.data).toMatchObject({bizRefundNo: 'A1', status: 'progress'})
    expect(await order(paid.orderNo)).toMatchObject({refundableBalance: 70, refundStatus: 'refunding'})
    const second = await t.send(endpoints.refund, {tradeNo: paid.tradeNo, amount: 70, bizRefundNo: 'A2'})
    expect(second.code).toBe(0)
    const third = await t.send(endpoints.refund, {tradeNo: paid.tradeNo, amount: 1, bizRefundNo: 'A3'})
    expect(third).toMatchObject({code: 20060, msg: expect.stringContaining('over the refundable balance 0')})
    await t.advance(1000)
    expect(await refund(second.data.refundNo)).toMatchObject({status: 'success'})
    expect(await refund(first.data.refundNo)).toMatchObject({status: 'success', amount: 30, orderAmount: 100, finishTime: expect.any(String)})
    expect(await order(paid.orderNo)).toMatchObject({refundableBalance: 0, refundStatus: 'refunded'})
    // their callbacks were sent before the clock's move answered
    const events = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.event === 'refund.success' && b.data.bizOrderNo === paid.bizOrderNo)
    expect(events.map((e) => e.data.amount).sort()).toEqual(['30', '70'])
  })

  it('never lets 20 concurrent refunds of 10 exceed an order of 100', async () => {
    const paid = await paidOrder()
    const answers = await Promise.all(
      Array.from({length: 20}, (_, i) => t.send(endpoints.refund, {orderNo: undefined, bizOrderNo: paid.bizOrderNo, amount: 10, bizRefundNo: `P${i}`})),
    )
    expect(answers.filter((a) => a.code === 0)).toHaveLength(10)
    expect(answers.filter((a) => a.code === 20060)).toHaveLength(10)
    expect((await order(paid.orderNo)).refundableBalance).toBe(0)
  })

  it('gives a failed refund back to the balance and emits refund.fail; close likewise', async () => {
    const paid = await paidOrder()
    const failing = await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 40, reason: 'test:fail'})
    const closing = await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 20, reason: 'test:close'})
    expect((await order(paid.orderNo)).refundableBalance).toBe(40)
    await t.advance(1000)
    expect(await refund(closing.data.refundNo)).toMatchObject({status: 'close'})
    expect(await refund(failing.data.refundNo)).toMatchObject({status: 'fail', errorMsg: expect.any(String)})
    expect(await order(paid.orderNo)).toMatchObject({refundableBalance: 100, refundStatus: 'no_refund'})
    expect(receiver.received.some((r) => JSON.parse(r.body).event === 'refund.fail' && JSON.parse(r.body).data.refundNo === failing.data.refundNo)).toBe(true)
    expect(receiver.received.some((r) => JSON.parse(r.body).event === 'refund.close' && JSON.parse(r.body).data.refundNo === closing.data.refundNo)).toBe(true)
  })

  it('is idempotent on bizRefundNo per order, and refuses unpaid orders', async () => {
    const paid = await paidOrder()
    const a = await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 5, bizRefundNo: 'SAME', reason: 'test:slow'})
    const b = await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 5, bizRefundNo: 'SAME', reason: 'test:slow'})
    expect(b.data.refundNo).toBe(a.data.refundNo)
    expect((await order(paid.orderNo)).refundableBalance).toBe(95)
    expect((await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 6, bizRefundNo: 'SAME'})).code).toBe(10507)
    const unpaid = await t.send(endpoints.pay, {bizOrderNo: `U${Date.now()}`, title: 'x', amount: 10, method: 'walletA_qr'})
    expect((await t.send(endpoints.refund, {bizOrderNo: unpaid.data.bizOrderNo, amount: 1})).code).toBe(20044)
    // the slow one waits for the channel; settled by hand it syncs to its final state
    const settled = await fetch(`${t.sandbox.url}/_sandbox/refunds/${a.data.refundNo}/settle`, {method: 'POST', headers: controlHeaders(t.sandbox.runtime), body: '{"outcome":"success"}'})
    expect(settled.status).toBe(200)
    expect((await t.send(endpoints.syncRefund, {bizRefundNo: 'SAME'})).data).toEqual({orderStatus: 'success', adjust: false})
    expect((await order(paid.orderNo)).refundStatus).toBe('partial_refund')
  })
})

const json = async (response: Response): Promise<any> => response.json()

describe('management API', () => {
  const login = async (account: string, password: string) => {
    const key = (await json(await fetch(`${t.sandbox.url}/token/public-key`))).data as string
    const publicKey = createPublicKey({key: Buffer.from(key, 'base64'), format: 'der', type: 'spki'})
    const encrypted = publicEncrypt({key: publicKey, padding: constants.RSA_PKCS1_PADDING}, Buffer.from(password)).toString('base64')
    const form = new URLSearchParams({account, password: encrypted, loginType: 'password', client: 'merchant'})
    return json(await fetch(`${t.sandbox.url}/token/login`, {method: 'POST', body: form}))
  }
  const page = async (token: string | undefined, query: Record<string, string>) => {
    const response = await fetch(`${t.sandbox.url}/mch/order/refund/page?${new URLSearchParams(query)}`, {headers: token ? {Accesstoken: token} : {}})
    return {status: response.status, body: await json(response)}
  }

  it('logs in with an RSA-encrypted password, filters, pages, and scopes to the merchant', async () => {
    // the refunds it lists are its own: four that succeed and one that fails, on one order
    const paid = await paidOrder()
    const mark = `MG${Date.now()}`
    const settle = (refundNo: string, outcome: string) =>
      fetch(`${t.sandbox.url}/_sandbox/refunds/${refundNo}/settle`, {method: 'POST', headers: controlHeaders(t.sandbox.runtime), body: JSON.stringify({outcome})})
    for (const [bizRefundNo, outcome] of [[`${mark}-OK1`, 'success'], [`${mark}-OK2`, 'success'], [`${mark}-OK3`, 'success'], [`${mark}-OK4`, 'success'], [`${mark}-NO`, 'fail']]) {
      const made = await t.send(endpoints.refund, {bizOrderNo: paid.bizOrderNo, amount: 10, bizRefundNo, reason: 'test:slow'})
      expect((await settle(made.data.refundNo, outcome)).status).toBe(200)
    }
    // another merchant's refund whose number holds the same mark
    const other = await newKeyPair()
    await fetch(`${t.sandbox.url}/_sandbox/merchants`, {method: 'POST', headers: controlHeaders(t.sandbox.runtime), body: JSON.stringify({mchNo: 'M2', publicKeyPem: other.publicKeyPem})})
    await fetch(`${t.sandbox.url}/_sandbox/users`, {method: 'POST', headers: controlHeaders(t.sandbox.runtime), body: JSON.stringify({account: 'ops', password: 'pw-1', mchNo: t.client.mchNo})})
    expect(await refundAs({...t.client, mchNo: 'M2', appId: 'AM2', privateKey: loadPrivateKey(other.privateKeyPem)}, `${mark}-OK-M2`)).toBe(0)

    expect((await login('ops', 'wrong')).code).not.toBe(0)
    const session = await login('ops', 'pw-1')
    expect(session.code).toBe(0)
    const token = session.data as string

    const all = await page(token, {size: '100'})
    expect(all.status).toBe(200)
    expect(all.body.data.records.every((r: {mchNo: string}) => r.mchNo === t.client.mchNo)).toBe(true)
    const sneaky = await page(token, {mchNo: 'M2', size: '100'})
    expect(sneaky.body.data.total).toBe(0)

    const ours = {bizOrderNo: paid.bizOrderNo}
    const success = await page(token, {...ours, status: 'success', size: '100'})
    expect(success.body.data.records.map((r: {bizRefundNo: string}) => r.bizRefundNo).sort()).toEqual([1, 2, 3, 4].map((i) => `${mark}-OK${i}`))
    expect(success.body.data.records.every((r: {status: string}) => r.status === 'success')).toBe(true)
    const failed = await page(token, {...ours, status: 'fail'})
    expect(failed.body.data.records.map((r: {bizRefundNo: string}) => r.bizRefundNo)).toEqual([`${mark}-NO`])
    const paged = await page(token, {...ours, size: '3', current: '2'})
    expect(paged.body.data).toMatchObject({size: 3, current: 2, total: 5})
    expect(paged.body.data.records).toHaveLength(2)
    const like = await page(token, {bizRefundNo: `${mark}-OK`})
    expect(like.body.data.records.map((r: {bizRefundNo: string}) => r.bizRefundNo).sort()).toEqual([1, 2, 3, 4].map((i) => `${mark}-OK${i}`))
    // one time format in the management API: finishTime as createTime
    for (const settled of success.body.data.records) expect(settled.finishTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/)
    const record = success.body.data.records[0]
    const byId = await fetch(`${t.sandbox.url}/mch/order/refund/get-by-id?id=${record.id}`, {headers: {Accesstoken: token}})
    expect((await json(byId)).data).toEqual(record)

    expect((await page(undefined, {})).status).toBe(401)
    // the session lasts its 10 minutes of the sandbox clock, and not past them
    await t.advance(10 * 60_000 - 1)
    expect((await page(token, {})).status).toBe(200)
    await t.advance(1)
    const expired = await page(token, {})
    expect(expired.status).toBe(401)
    expect(expired.body.message).toMatch(/expired/)
  })

  /** A paid order and a refund of it, as another merchant: the refund's code. */
  async function refundAs(client: typeof t.client, bizRefundNo: string): Promise<number> {
    const {buildRequest} = await import('../../src/client/pipeline.js')
    const pay = await buildRequest(client, endpoints.pay, {bizOrderNo: `${bizRefundNo}-ORDER`, title: 'x', amount: 10, authCode: '134567890123456789'})
    await t.post('/unipay/pay', pay.body)
    const request = await buildRequest(client, endpoints.refund, {bizOrderNo: `${bizRefundNo}-ORDER`, amount: 5, bizRefundNo})
    return (await t.post('/unipay/refund', request.body)).body.code
  }
})
