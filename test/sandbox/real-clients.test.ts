// Bodies as the official SDKs send them (written out, signed by an independent signer), and
// what the client then needs: accepted, with the meaning the SDK intended. Then where they met
// the sandbox's edges (issue 35): a walletA transfer with transferScene, the unsigned auth
// endpoint given an openId, the earliest refusals' reqId, wrong types named in words.
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {endpoints, unsignedEndpoints} from '../../src/protocol/endpoints.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {formatRequestLine, type RequestLogEntry} from '../../src/protocol/sandbox-requests.js'
import {checkFields} from '../../src/protocol/schemas.js'
import {oracleVerify, sdkCommon, sdkSigned, sdkString, unique} from '../helpers/sdk.js'
import {controlHeaders, removeDir, testSandbox, useTestSandbox} from '../helpers/sandbox.js'

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
    const own = await testSandbox({timeScale: 1000})
    try {
      const pem = readFileSync(own.sandbox.runtime.merchant.privateKeyFile, 'utf8')
      const set = await own.post('/_sandbox/merchants/settings', {mchNo: 'M1000000001', allocAmountUnit: 'cents'})
      expect(set.body).toEqual({mchNo: 'M1000000001', allocAmountUnit: 'cents', epayV1Md5KeyFile: own.sandbox.runtime.merchant.md5KeyFile})
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

/** The requests the sandbox logged for a path, newest last (what `sandbox logs --json` shows). */
async function logged(path: string): Promise<RequestLogEntry[]> {
  const answer = await fetch(`${t.sandbox.url}/_sandbox/requests?limit=500`, {headers: controlHeaders(t.sandbox.runtime)})
  const {entries} = (await answer.json()) as {entries: RequestLogEntry[]}
  return entries.filter((entry) => entry.path === path)
}

describe('a walletA transfer with transferScene (protocol-notes §4)', () => {
  it('is accepted and the scene ignored, as the platform does not forward it to walletA; `sandbox logs` says so', async () => {
    // the Java SDK's transfer: every field of its request class, unset ones null, the scene it was configured with
    const body = {
      ...sdkCommon(),
      channel: 'walletA',
      channelMchNo: 'CM_SANDBOX',
      bizTransferNo: unique('TF'),
      amount: 100,
      title: 'Bonus',
      reason: null,
      payeeType: 'openid',
      payeeAccount: unique('o'),
      payeeName: null,
      attach: null,
      notifyUrl: null,
      transferScene: '1000',
      reportInfos: [{infoType: 'activity', infoContent: 'November bonus'}],
      source: 'unipay-java-sdk/2.3.1',
    }
    const answer = await sdkPost(endpoints.transfer.path, body)
    expect(answer).toMatchObject({code: 0, data: {status: 'processing'}})
    expect(answer.data.confirmUrl).toBeTruthy()
    const [entry] = (await logged(endpoints.transfer.path)).slice(-1)
    expect(entry).toMatchObject({code: '0', notes: [expect.stringMatching(/^transferScene ignored: the platform does not forward it to walletA/)]})
    expect(formatRequestLine(entry)).toMatch(/\n {4}note: transferScene ignored: /)
    // walletB takes its scene as before, and nothing is noted
    const walletB = await sdkPost(endpoints.transfer.path, {...body, channel: 'walletB', payeeType: 'user_id', bizTransferNo: unique('TF'), reportInfos: null, ...sdkCommon()})
    expect(walletB.code).toBe(0)
    expect((await logged(endpoints.transfer.path)).at(-1)!.notes).toBeUndefined()
  })
})

describe('the unsigned auth endpoint given an openId as authCode', () => {
  /** An auth-code call as the SDKs send it: common fields, nulls, and a sign the endpoint does not check. */
  const authCall = (fields: Record<string, unknown>) =>
    t.post(unsignedEndpoints.auth.path, {...sdkCommon(), authType: 'walletA', channelAppId: null, authToken: null, queryCode: null, ...fields, sign: 'bm90IGNoZWNrZWQ='})

  it('answers the openId without the wallet\'s accessToken, which only the real code exchange gives', async () => {
    const session = (await t.send(endpoints.generateAuthUrl, {authType: 'walletA'})).data as {authUrl: string; queryCode: string}
    expect((await fetch(`${session.authUrl}/approve`, {method: 'POST', redirect: 'manual'})).status).toBe(303)
    const code = /<code id="auth-code">(AC[0-9a-f]+)<\/code>/.exec(await (await fetch(session.authUrl)).text())![1]
    // a poller with the queryCode but not the code: the openId, no token
    const polled = (await authCall({authCode: 'not-the-code', queryCode: session.queryCode})).body
    expect(polled).toMatchObject({code: 0, data: {status: 'success'}})
    expect(polled.data).not.toHaveProperty('accessToken')
    const exchanged = (await authCall({authCode: code})).body
    expect(exchanged.data.accessToken).toMatch(/^at_[0-9a-f]{32}$/)
    // anyone who saw the openId (a payment, a callback) asks with it and any signature
    const byOpenId = (await authCall({authCode: exchanged.data.openId})).body
    expect(byOpenId).toMatchObject({code: 0, message: 'success', data: {status: 'success', openId: exchanged.data.openId}})
    expect(byOpenId.data).not.toHaveProperty('accessToken')
    expect(JSON.stringify(byOpenId)).not.toContain(exchanged.data.accessToken)
  })
})

describe('refusals a client can match to its request', () => {
  it('echoes the reqId on the earliest refusal (a key the string to sign would flatten ambiguously)', async () => {
    const common = sdkCommon()
    const body = sdkSigned({...common, bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr', 'attach.note': 'x'}, t.merchantPem)
    const answer = await t.post(endpoints.pay.path, body)
    expect(answer.body).toMatchObject({code: 10506, reqId: common.reqId})
    expect(readEnvelope(answer.text, t.client.platformKey).verified).toBe(true)
    // a reqId longer than the spec allows is not echoed (a hostile body buys no larger answer)
    const long = await t.post(endpoints.pay.path, {...body, reqId: 'R'.repeat(65)})
    expect(long.body.reqId).toBe('')
  })

  it('names a wrong type in words: useCancel and allocation sent as strings (a PHP client\'s "false", "true")', async () => {
    const created = await sdkPost(endpoints.pay.path, {...sdkCommon(), bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr'})
    const close = await sdkPost(endpoints.close.path, {...sdkCommon(), orderNo: created.data.orderNo, useCancel: 'false'})
    expect(close).toMatchObject({code: 10506, msg: 'useCancel: must be true or false (a JSON boolean), not a string'})
    const pay = await sdkPost(endpoints.pay.path, {...sdkCommon(), bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr', allocation: 'true'})
    expect(pay).toMatchObject({code: 10506, msg: 'allocation: must be true or false (a JSON boolean), not a string'})
  })
})
