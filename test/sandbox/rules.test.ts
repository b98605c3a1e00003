// The platform's rules where an audit found the sandbox lenient or wrong (issue 25, rules 1-7):
// each case is the request a client sends, written out field by field and signed by an
// independent signer (test/helpers/sdk.ts, jsrsasign), against a sandbox on a clock the test moves.
import {constants, createPublicKey, publicEncrypt, randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {formatGmt8} from '../../src/protocol/time.js'
import {sdkSigned} from '../helpers/sdk.js'
import {controlHeaders, removeDir, testSandbox, waitFor, type TestSandbox} from '../helpers/sandbox.js'

/** 2026-11-24 19:59:56.400 GMT+8: a time inside a second, as real requests are. */
let clockMs = Date.parse('2026-11-24T19:59:56.400+08:00')
const now = () => new Date(clockMs)

let t: TestSandbox
let privateKeyPem: string
beforeAll(async () => {
  t = await testSandbox({now})
  privateKeyPem = readFileSync(t.sandbox.runtime.merchant.privateKeyFile, 'utf8')
})
afterAll(async () => {
  await t.close()
  removeDir(t.dataDir)
})

const unique = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`

/** The common fields an SDK sends, then the call's own; signed over exactly what is sent. */
function body(fields: Record<string, unknown>, on: TestSandbox = t): Record<string, unknown> {
  const {mchNo, appId} = on.sandbox.runtime.merchant
  return sdkSigned({mchNo, appId, reqId: unique('R'), nonceStr: unique('N'), reqTime: formatGmt8(now()), ...fields}, privateKeyPem)
}

const call = async (path: string, fields: Record<string, unknown>, on: TestSandbox = t) => (await on.post(path, body(fields, on))).body
const control = (path: string, payload: unknown, on: TestSandbox = t) =>
  fetch(`${on.sandbox.url}/_sandbox/${path}`, {method: 'POST', headers: controlHeaders(on.sandbox.runtime), body: JSON.stringify(payload)}).then((r) => r.json() as Promise<Record<string, any>>)

describe('one bizOrderNo space for pay and gateway orders (notes §4)', () => {
  it('K3 held by a payment: a gateway order is refused naming it, and a refund finds the payment, before and after a restart', async () => {
    const paid = await call('/unipay/pay', {bizOrderNo: 'K3', title: 'Tea', amount: 100, authCode: '134567890123456789'})
    expect(paid).toMatchObject({code: 0, data: {status: 'success'}})
    const refused = await call('/unipay/gateway/pre-pay', {bizOrderNo: 'K3', title: 'Tea', amount: 100, gatewayPayType: 'cashier'})
    expect(refused.code).toBe(10507)
    expect(refused.msg).toContain(`payment order ${paid.data.orderNo}`)
    const refund = {bizOrderNo: 'K3', bizRefundNo: 'RK3', amount: 10}
    const first = await call('/unipay/refund', refund)
    expect(first.code).toBe(0)

    await t.close()
    t = await testSandbox({now}, t.dataDir)

    expect((await call('/unipay/gateway/pre-pay', {bizOrderNo: 'K3', title: 'Tea', amount: 100, gatewayPayType: 'cashier'})).code).toBe(10507)
    // the same refund request is the same refund of the same order
    expect((await call('/unipay/refund', refund)).data.refundNo).toBe(first.data.refundNo)
    expect((await call('/unipay/query/pay-order', {bizOrderNo: 'K3'})).data).toMatchObject({orderNo: paid.data.orderNo, refundableBalance: 90})
  })

  it('G3 held by a gateway order: a payment is refused naming it, paid or not', async () => {
    const gateway = await call('/unipay/gateway/pre-pay', {bizOrderNo: 'G3', title: 'Tea', amount: 100, gatewayPayType: 'cashier'})
    expect(gateway.code).toBe(0)
    const refused = await call('/unipay/pay', {bizOrderNo: 'G3', title: 'Tea', amount: 100, method: 'walletA_qr'})
    expect(refused).toMatchObject({code: 10507, msg: expect.stringContaining(`gateway order ${gateway.data.orderNo}`)})
    expect((await control('pay', {order: gateway.data.orderNo})).status).toBe('paid')
    const again = await call('/unipay/pay', {bizOrderNo: 'G3', title: 'Tea', amount: 100, method: 'walletA_qr'})
    expect(again).toMatchObject({code: 10507, msg: expect.stringContaining(`gateway order ${gateway.data.orderNo}`)})
  })
})

describe('the management API', () => {
  let token = ''
  async function login(): Promise<void> {
    const account = unique('ops')
    await control('users', {account, password: 'pw', mchNo: t.client.mchNo})
    const key = ((await (await fetch(`${t.sandbox.url}/token/public-key`)).json()) as {data: string}).data
    const publicKey = createPublicKey({key: Buffer.from(key, 'base64'), format: 'der', type: 'spki'})
    const password = publicEncrypt({key: publicKey, padding: constants.RSA_PKCS1_PADDING}, Buffer.from('pw')).toString('base64')
    const form = new URLSearchParams({account, password, loginType: 'password', client: 'merchant'})
    token = ((await (await fetch(`${t.sandbox.url}/token/login`, {method: 'POST', body: form})).json()) as {data: string}).data
  }
  const page = async (query: Record<string, string>) =>
    ((await (await fetch(`${t.sandbox.url}/mch/order/refund/page?${new URLSearchParams({size: '100', ...query})}`, {headers: {Accesstoken: token}})).json()) as {data: {records: Record<string, any>[]}}).data.records

  it('createTimeEnd takes its whole second: a refund stamped 19:59:56.400 is in with end 19:59:56, and start = end finds it', async () => {
    clockMs = Date.parse('2026-11-24T19:59:56.400+08:00')
    const paid = await call('/unipay/pay', {bizOrderNo: unique('CT'), title: 'Tea', amount: 100, authCode: '134567890123456789'})
    const refund = await call('/unipay/refund', {tradeNo: paid.data.tradeNo, amount: 10})
    await login()
    const numbers = (records: Record<string, any>[]) => records.map((r) => r.refundNo)
    expect(numbers(await page({createTimeEnd: '2026-11-24 19:59:56'}))).toContain(refund.data.refundNo)
    expect(numbers(await page({createTimeStart: '2026-11-24 19:59:56', createTimeEnd: '2026-11-24 19:59:56'}))).toContain(refund.data.refundNo)
    expect(numbers(await page({createTimeEnd: '2026-11-24 19:59:55'}))).not.toContain(refund.data.refundNo)
  })

  it('product is the same word in the gateway query and the refund record of its trade', async () => {
    const gateway = await call('/unipay/gateway/pre-pay', {bizOrderNo: unique('GP'), title: 'Tea', amount: 100, gatewayPayType: 'cashier'})
    await control('pay', {order: gateway.data.orderNo, method: 'walletB_h5'})
    const queried = await call('/unipay/gateway/query', {orderNo: gateway.data.orderNo})
    expect(queried.data.product).toBe('H5')
    const refund = await call('/unipay/refund', {tradeNo: queried.data.tradeNo, amount: 10})
    await login()
    const record = (await page({refundNo: refund.data.refundNo}))[0]
    expect(record.product).toBe(queried.data.product)
  })
})

describe('common fields', () => {
  it('nonceStr is optional: null and absent are accepted, and reqId alone then refuses a replay', async () => {
    const {mchNo, appId} = t.sandbox.runtime.merchant
    const fields = {mchNo, appId, reqId: unique('R'), nonceStr: null, reqTime: formatGmt8(now()), bizOrderNo: unique('NN'), title: 'Tea', amount: 100, method: 'walletA_qr'}
    const sent = sdkSigned(fields, privateKeyPem)
    expect((await t.post('/unipay/pay', sent)).body.code).toBe(0)
    expect((await t.post('/unipay/pay', sent)).body).toMatchObject({code: 10409, msg: expect.stringContaining('reqId')})
    const {nonceStr: _absent, ...without} = {...fields, reqId: unique('R'), bizOrderNo: unique('NN')}
    expect((await t.post('/unipay/pay', sdkSigned(without, privateKeyPem))).body.code).toBe(0)
  })

  it('names the field of a bound crossed before anything else: sign over 1024, mchNo over 32, an unknown channelMchNo', async () => {
    const order = () => ({bizOrderNo: unique('BD'), title: 'Tea', amount: 100, method: 'walletA_qr'})
    const longSign = {...body(order()), sign: 'A'.repeat(1025)}
    expect((await t.post('/unipay/pay', longSign)).body).toMatchObject({code: 10506, msg: 'sign: must be at most 1024 characters'})
    expect((await t.post('/unipay/pay', body({...order(), mchNo: 'M'.repeat(33)}))).body).toMatchObject({code: 10506, msg: 'mchNo: must be at most 32 characters'})
    const unknown = await call('/unipay/pay', {...order(), channelMchNo: 'NOPE'})
    expect(unknown).toMatchObject({code: 20023, msg: expect.stringContaining('channelMchNo NOPE')})
    expect((await call('/unipay/pay', {...order(), channelMchNo: 'CM1'})).code).toBe(0)
  })
})

describe('trade numbers where an orderNo is asked (notes §3)', () => {
  it('query, sync and close take a payment\'s T... number', async () => {
    const created = await call('/unipay/pay', {bizOrderNo: unique('TN'), title: 'Tea', amount: 100, method: 'walletA_qr'})
    const {orderNo, tradeNo} = created.data
    expect(tradeNo).toMatch(/^T/)
    expect((await call('/unipay/query/pay-order', {orderNo: tradeNo})).data).toMatchObject({orderNo, status: 'progress'})
    expect((await call('/unipay/sync/order/pay', {orderNo: tradeNo})).data).toEqual({orderStatus: 'progress', adjust: false})
    expect((await call('/unipay/close', {orderNo: tradeNo})).code).toBe(0)
    expect((await call('/unipay/query/pay-order', {orderNo})).data.status).toBe('close')
  })

  it('a paid gateway order\'s GT... number names its payment, and closing it is refused in gateway words', async () => {
    const gateway = await call('/unipay/gateway/pre-pay', {bizOrderNo: unique('GT'), title: 'Tea', amount: 100, gatewayPayType: 'cashier'})
    const paid = await control('pay', {order: gateway.data.orderNo})
    expect(paid.tradeNo).toMatch(/^GT/)
    expect((await call('/unipay/query/pay-order', {orderNo: paid.tradeNo})).data).toMatchObject({orderNo: gateway.data.orderNo, status: 'success'})
    const closed = await call('/unipay/close', {orderNo: paid.tradeNo})
    expect(closed).toMatchObject({code: 20044, msg: `order ${gateway.data.orderNo} is paid; only wait_pay or paying orders can be closed`})
    expect((await call('/unipay/close', {orderNo: gateway.data.orderNo})).msg).toContain('is paid;')
  })
})

describe('faithful details', () => {
  it('a timed-out order closed at its expiredTime, not when the sweep noticed', async () => {
    const expiredTime = formatGmt8(new Date(clockMs + 60_000))
    const created = await call('/unipay/pay', {bizOrderNo: unique('TO'), title: 'Tea', amount: 100, method: 'walletA_qr', expiredTime})
    clockMs += 5 * 60_000
    expect((await call('/unipay/query/pay-order', {orderNo: created.data.orderNo})).data).toMatchObject({status: 'timeout', closeTime: expiredTime})
  })

  it('a split without its own notifyUrl sends nothing; query alloc gives its channel and, once settled, outAllocNo', async () => {
    const notifyUrl = 'http://127.0.0.1:9/payment-notify'
    const paid = await call('/unipay/pay', {bizOrderNo: unique('AL'), title: 'Tea', amount: 100, authCode: '284567890123456789', allocation: true, notifyUrl})
    const account = unique('2088')
    await control('receivers', {mchNo: t.client.mchNo, receiverType: 'USER_ID', receiverAccount: account})
    const alloc = await call('/unipay/alloc', {tradeNo: paid.data.tradeNo, bizAllocNo: unique('BA'), receivers: [{receiverType: 'USER_ID', receiverAccount: account, amount: 0.5}]})
    expect(alloc.code).toBe(0)
    expect((await call('/unipay/query/alloc-order', {allocNo: alloc.data.allocNo})).data).toMatchObject({status: 'processing', channel: 'walletB'})
    clockMs += 2000
    const settled = await waitFor(async () => {
      const answer = (await call('/unipay/query/alloc-order', {allocNo: alloc.data.allocNo})).data
      return answer.status === 'success' && answer
    })
    expect(settled).toMatchObject({channel: 'walletB', outAllocNo: expect.stringMatching(/\S/)})
    // callbacks are recorded before the change that causes them is answered: the list is complete
    const notifications = (await (await fetch(`${t.sandbox.url}/_sandbox/notifications`, {headers: controlHeaders(t.sandbox.runtime)})).json()) as {event: string; url: string}[]
    expect(notifications.filter((n) => n.url === notifyUrl).map((n) => n.event)).toEqual(['pay.success'])
  })
})

describe('the sandbox clock', () => {
  it('refuses an expiredTime behind an advanced clock, saying the clock was moved and what time it is', async () => {
    const own = await testSandbox({now})
    try {
      await control('clock', {advanceMs: 3_600_000}, own)
      const expiredTime = formatGmt8(new Date(clockMs + 10 * 60_000))
      const answer = await call('/unipay/pay', {bizOrderNo: unique('CK'), title: 'Tea', amount: 100, method: 'walletA_qr', expiredTime}, own)
      expect(answer.code).toBe(10506)
      expect(answer.msg).toBe(`expiredTime: must be in the future: the sandbox clock was moved ahead (\`sandbox clock advance\`) and is at ${formatGmt8(new Date(clockMs + 3_600_000))} GMT+8`)
    } finally {
      await own.close()
      removeDir(own.dataDir)
    }
  })
})
