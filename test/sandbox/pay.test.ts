import {describe, expect, it} from 'vitest'
import {buildRequest} from '../../src/client/pipeline.js'
import {canonicalString} from '../../src/protocol/canonical.js'
import {endpoints} from '../../src/protocol/endpoints.js'
import {signString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {removeDir, testSandbox, useTestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

const order = (extra: Record<string, unknown> = {}) => ({bizOrderNo: `B${Math.random().toString(36).slice(2)}`, title: 'Coffee', amount: 100, ...extra})

describe('pay create', () => {
  it.each([
    ['walletA_qr', 'qr_code', 'progress'],
    ['walletB_qr', 'qr_code', 'progress'],
    ['walletC_h5', 'link', 'progress'],
    ['walletA_cashier', 'link', 'progress'],
    ['walletB_pc', 'from', 'progress'],
    ['walletD_app', 'json', 'progress'],
    ['walletB_jsapi', 'jsapi', 'progress'],
    ['aggregate_pay_qrcode', 'qr_code', 'progress'],
  ])('%s answers payBodyType %s', async (method, payBodyType, status) => {
    const answer = await t.send(endpoints.pay, order({method}))
    expect(answer.code).toBe(0)
    expect(answer.data).toMatchObject({payBodyType, status})
    expect(answer.data.payBody).toBeTruthy()
    if (payBodyType === 'jsapi' || payBodyType === 'json') expect(() => JSON.parse(answer.data.payBody)).not.toThrow()
    if (payBodyType === 'from') expect(answer.data.payBody).toMatch(/<form[^>]+method="POST"/)
  })

  it('auto-routes an order without method to the aggregate QR', async () => {
    const answer = await t.send(endpoints.pay, order())
    expect(answer.data.payBody).toBe(`${t.sandbox.url}/aggregate/${answer.data.orderNo}`)
  })

  it('detects the wallet from the barcode prefix and succeeds at once', async () => {
    for (const [code, channel] of [['134567890123456789', 'walletA'], ['284567890123456789', 'walletB'], ['624567890123456789', 'walletC']]) {
      const created = await t.send(endpoints.pay, order({authCode: code}))
      expect(created.data).toMatchObject({status: 'success', payBodyType: 'identifier'})
      const queried = await t.send(endpoints.queryPay, {orderNo: created.data.orderNo})
      expect(queried.data).toMatchObject({channel, method: `${channel}_barcode`, status: 'success', refundableBalance: 100})
    }
  })

  it('declines the test barcode ending in 9999', async () => {
    const created = await t.send(endpoints.pay, order({authCode: '134567890123459999'}))
    expect(created.data.status).toBe('fail')
  })

  it('rejects an unknown prefix and a method that contradicts the barcode, naming the field', async () => {
    const request = await buildRequest({...t.client}, endpoints.pay, order())
    // bypass client-side validation: sign a body the client would refuse
    const bad: Record<string, unknown> = {...request.body, authCode: '994567890123456789'}
    delete bad.sign
    const answer = await t.post('/unipay/pay', {...bad, sign: signString(canonicalString(bad), t.client.privateKey!)})
    expect(answer.body.code).toBe(10506)
    expect(answer.body.msg).toMatch(/^authCode: /)
    const contradicting: Record<string, unknown> = {...request.body, reqId: 'other1', nonceStr: 'other1', method: 'walletB_barcode', authCode: '134567890123456789'}
    delete contradicting.sign
    const answer2 = await t.post('/unipay/pay', {...contradicting, sign: signString(canonicalString(contradicting), t.client.privateKey!)})
    expect(answer2.body.code).toBe(10506)
    expect(answer2.body.msg).toMatch(/^method: contradicts/)
  })

  it('is idempotent on bizOrderNo and refuses reuse with other parameters (10507)', async () => {
    const fields = order()
    const first = await t.send(endpoints.pay, fields)
    const again = await t.send(endpoints.pay, fields)
    expect(again.data.orderNo).toBe(first.data.orderNo)
    const conflicting = await t.send(endpoints.pay, {...fields, amount: 200})
    expect(conflicting.code).toBe(10507)
  })

  it('answers 20012 for an unknown method and 20022 for the reserved card methods', async () => {
    expect((await t.send(endpoints.pay, order({method: 'cardA_card_gateway'}))).code).toBe(20022)
    const request = await buildRequest(t.client, endpoints.pay, order())
    const body: Record<string, unknown> = {...request.body, method: 'walletZ_qr'}
    delete body.sign
    const answer = await t.post('/unipay/pay', {...body, sign: signString(canonicalString(body), t.client.privateKey!)})
    expect(answer.body.code).toBe(20012)
  })

  it('requires openId for walletA_jsapi', async () => {
    const request = await buildRequest(t.client, endpoints.pay, order())
    const body: Record<string, unknown> = {...request.body, method: 'walletA_jsapi'}
    delete body.sign
    const answer = await t.post('/unipay/pay', {...body, sign: signString(canonicalString(body), t.client.privateKey!)})
    expect(answer.body).toMatchObject({code: 10506, msg: 'openId: is required for walletA_jsapi'})
  })
})

describe('close, sync, query', () => {
  it('closes or cancels only open orders', async () => {
    const a = await t.send(endpoints.pay, order({method: 'walletA_qr'}))
    expect((await t.send(endpoints.close, {orderNo: a.data.orderNo, useCancel: false})).code).toBe(0)
    expect((await t.send(endpoints.queryPay, {orderNo: a.data.orderNo})).data.status).toBe('close')
    expect((await t.send(endpoints.close, {orderNo: a.data.orderNo, useCancel: true})).code).toBe(20044)
    const b = await t.send(endpoints.pay, order({method: 'walletA_qr'}))
    await t.send(endpoints.close, {bizOrderNo: b.data.bizOrderNo, useCancel: true})
    expect((await t.send(endpoints.queryPay, {bizOrderNo: b.data.bizOrderNo})).data.status).toBe('cancel')
  })

  it('syncs a paid order', async () => {
    const a = await t.send(endpoints.pay, order({authCode: '134567890123456789'}))
    const sync = await t.send(endpoints.syncPay, {bizOrderNo: a.data.bizOrderNo})
    expect(sync.data).toEqual({orderStatus: 'success', adjust: false})
  })

  it('answers 20041 for an unknown order and 10506 when no reference is given', async () => {
    expect((await t.send(endpoints.queryPay, {orderNo: 'nope'})).code).toBe(20041)
    const request = await buildRequest(t.client, endpoints.ping, {})
    const answer = await t.post('/unipay/query/pay-order', request.body)
    expect(answer.body).toMatchObject({code: 10506, msg: 'orderNo: one of orderNo / bizOrderNo is required'})
  })

  it('expires an unpaid order to timeout', async () => {
    // a sandbox of its own: its clock is moved
    const own = await testSandbox()
    try {
      const a = await own.send(endpoints.pay, order({method: 'walletA_qr', expiredTime: formatGmt8(new Date(Date.now() + 10 * 60_000))}))
      expect((await own.send(endpoints.queryPay, {orderNo: a.data.orderNo})).data.status).toBe('progress')
      expect((await own.post('/_sandbox/clock', {advanceMs: 10 * 60_000})).status).toBe(200)
      const queried = await own.send(endpoints.queryPay, {orderNo: a.data.orderNo})
      expect(queried.data.status).toBe('timeout')
      expect(queried.data.closeTime).toBeTruthy()
    } finally {
      await own.close()
      removeDir(own.dataDir)
    }
  })
})

describe('request checks', () => {
  it('answers 20052 with the server string to sign when the signature is wrong', async () => {
    const request = await buildRequest(t.client, endpoints.pay, order())
    const answer = await t.post('/unipay/pay', {...request.body, title: 'changed'})
    expect(answer.body.code).toBe(20052)
    expect(answer.body.msg).toContain(`server string to sign: ${request.canonicalString.replace('title=Coffee', 'title=changed')}`)
  })

  it('refuses a sign that is not canonical Base64 (20052, saying why), though it decodes to the right signature', async () => {
    const request = await buildRequest(t.client, endpoints.ping, {})
    const sign = request.body.sign as string
    for (const [respelled, why] of [
      [`${sign}\n`, 'a newline'],
      [sign.replace(/=+$/, ''), 'padding'],
      [sign.replace(/\+/g, '-').replace(/\//g, '_'), 'URL-safe'],
    ] as const) {
      if (respelled === sign) continue
      const answer = await t.post('/unipay/ping', {...request.body, sign: respelled})
      expect(answer.body.code, why).toBe(20052)
      expect(answer.body.msg).toContain('not canonical Base64')
      expect(answer.body.msg).toContain(why)
    }
    expect((await t.post('/unipay/ping', request.body)).body.code).toBe(0)
  })

  it('signs its answers, errors included', async () => {
    const answer = await t.post('/unipay/pay', {mchNo: t.client.mchNo})
    expect(answer.body).toMatchObject({code: 10506})
    expect(answer.body.sign).toBeTruthy()
  })

  it('rejects a reused reqId or nonceStr (10409) and a reqTime out of the window (10410)', async () => {
    const request = await buildRequest(t.client, endpoints.ping, {})
    expect((await t.post('/unipay/ping', request.body)).body.code).toBe(0)
    expect((await t.post('/unipay/ping', request.body)).body).toMatchObject({code: 10409})
    const old = await buildRequest({...t.client, now: () => new Date(Date.now() - 400_000)}, endpoints.ping, {})
    expect((await t.post('/unipay/ping', old.body)).body.code).toBe(10410)
  })

  it('rejects an unknown merchant (20023), bad JSON (10505) and unknown routes (404)', async () => {
    const request = await buildRequest({...t.client, mchNo: 'M0'}, endpoints.ping, {})
    expect((await t.post('/unipay/ping', request.body)).body.code).toBe(20023)
    expect((await t.post('/unipay/ping', '{"mchNo":')).body.code).toBe(10505)
    expect((await t.post('/unipay/nowhere', {})).status).toBe(404)
  })

  it('verifies a close over what was sent: without useCancel it is accepted and the default applies', async () => {
    const a = await t.send(endpoints.pay, order({method: 'walletA_qr'}))
    const request = await buildRequest(t.client, endpoints.ping, {})
    const body: Record<string, unknown> = {...request.body, orderNo: a.data.orderNo}
    delete body.sign
    const signed = {...body, sign: signString(canonicalString(body), t.client.privateKey!)}
    // the default is not part of what was signed: adding it after signing is tampering
    const tampered = await t.post('/unipay/close', {...signed, useCancel: false})
    expect(tampered.body.code).toBe(20052)
    expect(tampered.body.msg).toContain('useCancel=false')
    expect((await t.post('/unipay/close', signed)).body.code).toBe(0)
    expect((await t.send(endpoints.queryPay, {orderNo: a.data.orderNo})).data.status).toBe('close')
  })

  it('answers ping with its own string to sign', async () => {
    const request = await buildRequest(t.client, endpoints.ping, {})
    const answer = await t.post('/unipay/ping', request.body)
    expect(answer.body.data).toMatchObject({mchNo: t.client.mchNo, appId: t.client.appId, appFromDefault: false, serverSignStr: request.canonicalString})
  })
})
