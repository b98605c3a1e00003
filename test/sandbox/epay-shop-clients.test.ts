// epay as other people's shop clients speak it (protocol-notes section 7, revised): the
// protocol's own wallet words, V1's code 1 / -1, the six device values, refundmoney only after a
// refund, browser paths that answer a person, and every V2 timestamp on the real clock after
// `sandbox clock advance`. Each request is written out as such a client sends it and signed by
// an independent signer (node's md5 for V1, jsrsasign for V2); each V2 answer, return link and
// notification is checked the way those clients check it (their selection, 300 s of real time).
import {createHash, randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {epayV2Sign, epayV2Verify} from '../helpers/sdk.js'
import {removeDir, testSandbox, useTestSandbox, waitFor, type TestSandbox} from '../helpers/sandbox.js'

const PID = 'M1000000001'
const V1 = '/epay/api/v1/'
const V2 = '/epay/api/v2/api/pay/'
const ACCEPTED_WALLETS = 'alipay, wxpay, aggregate, walletA, walletB, walletC, walletD'

// the sandbox clock stands still: a refund settles when a test moves it
const t = useTestSandbox({pausedClock: true})
let md5Key = ''
let platformPem = ''

beforeAll(async () => {
  md5Key = readFileSync(t.sandbox.runtime.merchant.md5KeyFile!, 'utf8').trim()
  platformPem = t.sandbox.runtime.platformPublicKeyPem
})

const unique = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`
const realSeconds = () => String(Math.floor(Date.now() / 1000))

/** A V1 shop client: non-empty parameters but sign and sign_type, sorted, k=v joined by &, the key appended, md5 hex. */
function v1(params: Record<string, string>, key = md5Key): Record<string, string> {
  const all = {pid: PID, ...params}
  const text = Object.keys(all).filter((k) => k !== 'sign' && k !== 'sign_type' && all[k as keyof typeof all] !== '').sort().map((k) => `${k}=${all[k as keyof typeof all]}`).join('&')
  return {...all, sign: createHash('md5').update(text + key, 'utf8').digest('hex'), sign_type: 'MD5'}
}

/** A V2 shop client: its parameters, the real time, an RSA sign over its selection, sign_type=RSA. */
function v2(params: Record<string, string>): Record<string, string> {
  const all = {pid: PID, ...params, timestamp: realSeconds()}
  return {...all, sign: epayV2Sign(all, t.merchantPem), sign_type: 'RSA'}
}

async function send(path: string, params: Record<string, string>, on: TestSandbox = t) {
  const response = await fetch(`${on.sandbox.url}${path}`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams(params).toString(),
    redirect: 'manual',
  })
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  return {status: response.status, type, text, body: type.startsWith('application/json') ? (JSON.parse(text) as Record<string, any>) : {}, location: response.headers.get('location') ?? undefined}
}

/** What a V2 client accepts: the sign over the answer's flat scalars with the platform key, its timestamp within 300 s of real time. */
function v2Accepts(fields: Record<string, unknown>): boolean {
  const flat = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && typeof v !== 'object').map(([k, v]) => [k, String(v)]))
  return epayV2Verify(flat, platformPem) && Math.abs(Number(flat.timestamp) - Date.now() / 1000) <= 300
}

async function v2Call(action: string, params: Record<string, string>, on: TestSandbox = t) {
  const answer = await send(`${V2}${action}`, v2(params), on)
  expect(answer.status).toBe(200)
  expect(v2Accepts(answer.body)).toBe(true)
  return answer.body
}

const methodOf = async (outTradeNo: string) => (await t.send(endpoints.queryPay, {bizOrderNo: outTradeNo})).data?.method
const pay = (tradeNo: string, wallet?: string) => t.post('/_sandbox/pay', {order: tradeNo, wallet})

describe('V1 clients (code 1 on success, -1 with the cause on failure)', () => {
  it.each([
    ['alipay', 'walletB_qr', 'qrcode'],
    ['wxpay', 'walletA_qr', 'qrcode'],
    ['aggregate', 'aggregate_pay_qrcode', 'qrcode'],
    ['walletC', 'walletC_qr', 'qrcode'],
  ])('mapi.php type=%s: created (code 1), the word echoed, paid as %s', async (type, method, payType) => {
    const outTradeNo = unique('V1')
    const created = await send(`${V1}mapi.php`, v1({type, out_trade_no: outTradeNo, notify_url: 'http://127.0.0.1:1/notify', name: 'VIP', money: '1.00', clientip: '127.0.0.1', device: 'pc', sitename: 'Shop'}))
    expect(created.body).toMatchObject({code: 1, msg: 'success', trade_no: expect.stringMatching(/^DP/), out_trade_no: outTradeNo, type, money: '1.00', pay_type: payType})
    expect(await methodOf(outTradeNo)).toBe(method)
    const queried = await send(`${V1}api.php`, {act: 'order', pid: PID, key: md5Key, out_trade_no: outTradeNo})
    expect(queried.body).toMatchObject({code: 1, status: 0, type, trade_no: created.body.trade_no})
    expect(queried.body).not.toHaveProperty('refundmoney')
  })

  it('mapi.php refuses other epay words with code -1, listing what is accepted; nothing is created', async () => {
    for (const type of ['qqpay', 'bank', 'jdpay']) {
      const outTradeNo = unique('V1')
      const refused = await send(`${V1}mapi.php`, v1({type, out_trade_no: outTradeNo, name: 'VIP', money: '1.00'}))
      expect(refused.body).toMatchObject({code: -1, msg: `type: "${type}" is not accepted: one of ${ACCEPTED_WALLETS}`})
      expect(await methodOf(outTradeNo)).toBeUndefined()
    }
  })

  it.each([
    ['pc', 'walletB_qr', 'qrcode'],
    ['mobile', 'walletB_h5', 'jump'],
    ['qq', 'walletB_h5', 'jump'],
    ['wechat', 'walletB_h5', 'jump'],
    ['alipay', 'walletB_h5', 'jump'],
    ['jump', 'walletB_h5', 'jump'],
    ['tablet', 'walletB_qr', 'qrcode'],
  ])('device=%s is taken (unknown values ignored): %s', async (device, method, payType) => {
    const outTradeNo = unique('D')
    const created = await send(`${V1}mapi.php`, v1({type: 'alipay', device, out_trade_no: outTradeNo, name: 'VIP', money: '1.00'}))
    expect(created.body).toMatchObject({code: 1, pay_type: payType})
    expect(await methodOf(outTradeNo)).toBe(method)
  })

  it('failures say what is wrong: a bad sign, the MD5 key signed with a newline after it, money, act=refund, a wrong key', async () => {
    const params = {type: 'alipay', out_trade_no: unique('V1'), name: 'VIP', money: '1.00'}
    const tampered = await send(`${V1}mapi.php`, {...v1(params), money: '0.01'})
    expect(tampered.body).toMatchObject({code: -1, msg: expect.stringMatching(/^signature verification failed \(MD5\); server string to sign: money=0\.01&/)})
    const newline = await send(`${V1}mapi.php`, v1(params, `${md5Key}\n`))
    expect(newline.body).toMatchObject({code: -1, msg: expect.stringContaining('the MD5 key was signed with a newline after it')})
    expect(newline.text).not.toContain(md5Key)
    expect((await send(`${V1}mapi.php`, v1({...params, money: '1.005'}))).body).toMatchObject({code: -1, msg: expect.stringContaining('money: "1.005" is not an amount in yuan')})
    const refund = await send(`${V1}api.php`, {act: 'refund', pid: PID, key: md5Key, out_trade_no: params.out_trade_no, money: '1.00'})
    expect(refund.body).toMatchObject({code: -1, msg: 'act=refund: V1 has no refund; refunds go through V2 (RSA): /epay/api/v2/api/pay/refund'})
    const wrongKey = await send(`${V1}api.php`, {act: 'order', pid: PID, key: `${md5Key}\n`, out_trade_no: params.out_trade_no})
    expect(wrongKey.body).toMatchObject({code: -1, msg: expect.stringContaining('it has whitespace around it')})
  })

  it('an unknown path or method under V1 fails as V1 fails (code -1), naming the path and V1\'s paths', async () => {
    const paths = '/epay/api/v1/submit.php, /epay/api/v1/mapi.php, /epay/api/v1/api.php'
    const refund = await send(`${V1}refund.php`, v1({out_trade_no: unique('P'), money: '1.00'}))
    expect(refund).toMatchObject({status: 404, type: expect.stringMatching(/^application\/json/)})
    expect(refund.body).toEqual({code: -1, msg: `no V1 path /epay/api/v1/refund.php: V1 answers at ${paths}`, data: null})
    const bare = await fetch(`${t.sandbox.url}/epay/api/v1?act=order`)
    expect(bare.status).toBe(404)
    expect(await bare.json()).toMatchObject({code: -1, msg: `no V1 path /epay/api/v1: V1 answers at ${paths}`})
    const put = await fetch(`${t.sandbox.url}${V1}mapi.php`, {method: 'PUT', body: ''})
    expect(put.status).toBe(405)
    expect(await put.json()).toMatchObject({code: -1, msg: 'PUT is not allowed: use GET (query) or POST (form)'})
  })

  it('the notification echoes the word sent (MD5, as the client verifies it)', async () => {
    const receiver = await notifyReceiver()
    try {
      const created = await send(`${V1}mapi.php`, v1({type: 'wxpay', out_trade_no: unique('N'), name: 'VIP', money: '2', notify_url: receiver.url}))
      await pay(created.body.trade_no)
      const [arrival] = await waitFor(() => receiver.arrivals.length > 0 && receiver.arrivals)
      expect(arrival).toMatchObject({type: 'wxpay', money: '2.00', trade_status: 'TRADE_SUCCESS', sign_type: 'MD5'})
      expect(v1(Object.fromEntries(Object.entries(arrival).filter(([k]) => k !== 'pid'))).sign).toBe(arrival.sign)
    } finally {
      await receiver.close()
    }
  })
})

describe('V1 submit.php, a browser path', () => {
  it('an accepted word redirects to the payer page; an unknown or missing type to the cashier, where the payer picks', async () => {
    const direct = await send(`${V1}submit.php`, v1({type: 'alipay', out_trade_no: unique('S'), name: 'VIP', money: '1.00'}))
    expect(direct.status).toBe(302)
    for (const type of ['qqpay', '']) {
      const outTradeNo = unique('S')
      const cashier = await send(`${V1}submit.php`, v1({type, out_trade_no: outTradeNo, name: 'VIP', money: '1.00'}))
      expect(cashier.status).toBe(302)
      expect(await methodOf(outTradeNo)).toBe('aggregate_pay_qrcode')
      const page = await (await fetch(cashier.location!)).text()
      expect(page).toContain('id="pay-walletA"')
      expect(page).toContain('id="pay-walletB"')
    }
  })

  it('the payer who picks walletA on the cashier goes back by a link that says wxpay and verifies as the V1 client checks it (MD5)', async () => {
    const outTradeNo = unique('S')
    const submitted = await send(`${V1}submit.php`, v1({type: 'qqpay', out_trade_no: outTradeNo, name: 'VIP', money: '1.50', return_url: 'http://127.0.0.1:1/back'}))
    // the payer's browser: follows the redirect, presses "Pay with walletA", comes back to the page
    const picked = await fetch(submitted.location!, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'wallet=walletA', redirect: 'manual'})
    expect(picked.status).toBe(303)
    const href = /id="return" href="([^"]+)"/.exec(await (await fetch(submitted.location!)).text())![1].replaceAll('&amp;', '&')
    const back = new URL(href)
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:1/back')
    const query = Object.fromEntries(back.searchParams)
    expect(query).toMatchObject({pid: PID, out_trade_no: outTradeNo, type: 'wxpay', money: '1.50', trade_status: 'TRADE_SUCCESS', sign_type: 'MD5'})
    // the shop's return page: every parameter but sign and sign_type, sorted, the MD5 key appended
    expect(v1(Object.fromEntries(Object.entries(query).filter(([k]) => k !== 'pid'))).sign).toBe(query.sign)
  })

  it('a refusal is an HTML page (HTTP 400) saying what is wrong, never JSON', async () => {
    const refused = await send(`${V1}submit.php`, {...v1({type: 'alipay', out_trade_no: unique('S'), name: '<b>VIP</b>', money: '1.00'}), money: '9.00'})
    expect(refused.status).toBe(400)
    expect(refused.type).toMatch(/^text\/html/)
    expect(refused.text).toContain('signature verification failed (MD5)')
    expect(refused.text).toContain('name=&lt;b&gt;VIP&lt;/b&gt;')
    expect(refused.text).not.toMatch(/^\s*\{/)
    const badMoney = await send(`${V1}submit.php`, v1({type: 'alipay', out_trade_no: unique('S'), name: 'VIP', money: 'abc'}))
    expect(badMoney).toMatchObject({status: 400, type: expect.stringMatching(/^text\/html/)})
    expect(badMoney.text).toContain('money: &quot;abc&quot; is not an amount in yuan')
  })
})

describe('V2 clients (code 0, signed answers)', () => {
  it.each([
    [{type: 'alipay'}, 'alipay', 'walletB_qr'],
    [{type: 'alipay', method: 'jump'}, 'alipay', 'walletB_h5'],
    [{type: 'web', method: 'wxpay'}, 'wxpay', 'walletA_qr'],
    [{type: 'wxpay', method: 'web', device: 'mobile'}, 'wxpay', 'walletA_qr'],
    [{type: 'aggregate', method: 'web'}, 'aggregate', 'aggregate_pay_qrcode'],
    [{method: 'web', type: 'walletD'}, 'walletD', 'walletD_qr'],
  ])('create %j: answered in the client\'s word, paid as %s', async (words, echoed, method) => {
    const outTradeNo = unique('V2')
    const created = await v2Call('create', {...words, out_trade_no: outTradeNo, name: 'VIP', money: '1.00'})
    expect(created).toMatchObject({code: 0, type: echoed, out_trade_no: outTradeNo})
    expect(await methodOf(outTradeNo)).toBe(method)
  })

  it.each(['pc', 'mobile', 'qq', 'wechat', 'alipay', 'jump'])('type=web with device=%s stays a QR (pay_type qrcode)', async (device) => {
    const created = await v2Call('create', {type: 'web', method: 'alipay', device, out_trade_no: unique('W'), name: 'VIP', money: '1.00'})
    expect(created).toMatchObject({code: 0, pay_type: 'qrcode'})
  })

  it('refuses other words on the API paths, listing every accepted value; creates nothing', async () => {
    const listing = `one of payment types web, jump, jsapi, app; wallets ${ACCEPTED_WALLETS}`
    const byType = await v2Call('create', {type: 'qqpay', method: 'web', out_trade_no: unique('Q'), name: 'VIP', money: '1.00'})
    expect(byType).toMatchObject({code: 10506, msg: `type: "qqpay" is not accepted: ${listing}`})
    const byMethod = await v2Call('create', {type: 'web', method: 'qqpay', out_trade_no: unique('Q'), name: 'VIP', money: '1.00'})
    expect(byMethod).toMatchObject({code: 10506, msg: `method: "qqpay" is not accepted: ${listing}`})
    const outTradeNo = unique('Q')
    expect(await v2Call('create', {type: 'bank', out_trade_no: outTradeNo, name: 'VIP', money: '1.00'})).toMatchObject({code: 10506})
    expect(await methodOf(outTradeNo)).toBeUndefined()
  })

  it('query, refund, refundquery and close: refundmoney only after a refund, addtime on refundquery', async () => {
    const outTradeNo = unique('R')
    const created = await v2Call('create', {type: 'alipay', method: 'web', out_trade_no: outTradeNo, name: 'VIP', money: '10.00'})
    const unpaid = await v2Call('query', {out_trade_no: outTradeNo})
    expect(unpaid).toMatchObject({code: 0, status: 0, type: 'alipay', money: '10.00'})
    expect(unpaid).not.toHaveProperty('refundmoney')
    await pay(created.trade_no)
    const paid = await v2Call('query', {trade_no: created.trade_no})
    expect(paid).toMatchObject({status: 1, type: 'alipay', endtime: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)})
    expect(paid).not.toHaveProperty('refundmoney')

    const outRefundNo = unique('RR')
    const refund = await v2Call('refund', {out_trade_no: outTradeNo, money: '2.50', out_refund_no: outRefundNo})
    expect(refund).toMatchObject({code: 0, out_refund_no: outRefundNo, money: '2.50', reducemoney: '2.50'})
    expect(await v2Call('query', {out_trade_no: outTradeNo})).toMatchObject({code: 0, status: 1, refundmoney: '2.50'})
    expect(await v2Call('refundquery', {out_refund_no: outRefundNo})).toMatchObject({code: 0, status: 0})
    await t.advance(1000)
    const followed = await v2Call('refundquery', {out_refund_no: outRefundNo})
    expect(followed).toMatchObject({code: 0, status: 1, refund_no: refund.refund_no, money: '2.50', addtime: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)})

    const closing = unique('C')
    await v2Call('create', {type: 'wxpay', out_trade_no: closing, name: 'VIP', money: '1.00'})
    expect(await v2Call('close', {out_trade_no: closing})).toMatchObject({code: 0, status: 'close'})
    const closed = await v2Call('query', {out_trade_no: closing})
    expect(closed).toMatchObject({code: 0, status: 0, type: 'wxpay'})
    expect(closed).not.toHaveProperty('refundmoney')
  })

  it('the notification carries addtime and endtime and echoes the word; it verifies as the client checks it', async () => {
    const receiver = await notifyReceiver()
    try {
      const created = await v2Call('create', {type: 'aggregate', method: 'web', out_trade_no: unique('N'), name: 'VIP', money: '3.00', notify_url: receiver.url})
      await pay(created.trade_no, 'walletB')
      const [arrival] = await waitFor(() => receiver.arrivals.length > 0 && receiver.arrivals)
      expect(arrival).toMatchObject({type: 'aggregate', trade_status: 'TRADE_SUCCESS', addtime: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), endtime: expect.stringMatching(/^\d{4}-/)})
      expect(v2Accepts(arrival)).toBe(true)
    } finally {
      await receiver.close()
    }
  })
})

describe('V2 submit, a browser path', () => {
  it('an unknown or missing type goes to the cashier, where the payer picks; the notification names the wallet paid with in epay words', async () => {
    const receiver = await notifyReceiver()
    try {
      const outTradeNo = unique('S')
      const submitted = await send(`${V2}submit`, v2({type: 'qqpay', out_trade_no: outTradeNo, name: 'VIP', money: '1.00', notify_url: receiver.url}))
      expect(submitted.status).toBe(302)
      expect(await methodOf(outTradeNo)).toBe('aggregate_pay_qrcode')
      expect((await fetch(submitted.location!, {method: 'POST', body: 'wallet=walletB', headers: {'content-type': 'application/x-www-form-urlencoded'}, redirect: 'manual'})).status).toBe(303)
      const [arrival] = await waitFor(() => receiver.arrivals.length > 0 && receiver.arrivals)
      expect(arrival).toMatchObject({type: 'alipay', out_trade_no: outTradeNo})
      expect(v2Accepts(arrival)).toBe(true)
      const missing = await send(`${V2}submit`, v2({out_trade_no: unique('S'), name: 'VIP', money: '1.00'}))
      expect(missing.status).toBe(302)
    } finally {
      await receiver.close()
    }
  })

  it('a refusal is an HTML page (HTTP 400); the API path keeps JSON', async () => {
    const stale = {pid: PID, type: 'alipay', out_trade_no: unique('S'), name: 'VIP', money: '1.00', timestamp: String(Number(realSeconds()) - 1000)}
    const signed = {...stale, sign: epayV2Sign(stale, t.merchantPem), sign_type: 'RSA'}
    const page = await send(`${V2}submit`, signed)
    expect(page).toMatchObject({status: 400, type: expect.stringMatching(/^text\/html/)})
    expect(page.text).toContain('behind the platform clock')
    const jsonBody = await fetch(`${t.sandbox.url}${V2}submit`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
    expect(jsonBody.status).toBe(400)
    expect(await jsonBody.text()).toContain('send the parameters form-encoded')
    const api = await send(`${V2}create`, signed)
    expect(api).toMatchObject({status: 200, type: expect.stringMatching(/^application\/json/), body: {code: 10410}})
  })
})

describe('notify_url and return_url the sandbox would call or show (as /unipay/* notifyUrl, returnUrl)', () => {
  const own = () => new URL(t.sandbox.url).host
  const order = (extra: Record<string, string>) => ({type: 'alipay', out_trade_no: unique('U'), name: 'VIP', money: '1.00', ...extra})

  it('V1 mapi.php: code -1 with a msg naming the parameter; nothing is created', async () => {
    const atSandbox = order({notify_url: `http://${own()}/dashboard`})
    const refused = await send(`${V1}mapi.php`, v1(atSandbox))
    expect(refused.body).toMatchObject({code: -1, msg: `notify_url: must not point at the sandbox itself (${own()})`})
    expect(await methodOf(atSandbox.out_trade_no)).toBeUndefined()
    const localhost = await send(`${V1}mapi.php`, v1(order({return_url: `http://localhost:${new URL(t.sandbox.url).port}/epay/pay/x`})))
    expect(localhost.body).toMatchObject({code: -1, msg: `return_url: must not point at the sandbox itself (${own()})`})
    const userinfo = await send(`${V1}mapi.php`, v1(order({notify_url: 'http://user:secret@shop.example.com/notify'})))
    expect(userinfo.body).toMatchObject({code: -1, msg: 'notify_url: must not carry a user name or password'})
  })

  it('V2 create: a non-zero code in a signed answer', async () => {
    const atSandbox = order({method: 'web', notify_url: `http://[::1]:${new URL(t.sandbox.url).port}/_sandbox/pay`})
    expect(await v2Call('create', atSandbox)).toMatchObject({code: 10506, msg: `notify_url: must not point at the sandbox itself (${own()})`})
    expect(await methodOf(atSandbox.out_trade_no)).toBeUndefined()
    expect(await v2Call('create', order({method: 'web', return_url: 'https://bank.example.com@shop.example.com/'}))).toMatchObject({code: 10506, msg: 'return_url: must not carry a user name or password'})
  })

  it('submit (V1 and V2): an HTML page (HTTP 400) for the payer', async () => {
    const v1Page = await send(`${V1}submit.php`, v1(order({notify_url: `http://127.0.0.1:${new URL(t.sandbox.url).port}/notify`})))
    expect(v1Page).toMatchObject({status: 400, type: expect.stringMatching(/^text\/html/)})
    expect(v1Page.text).toContain(`notify_url: must not point at the sandbox itself (${own()})`)
    const v2Page = await send(`${V2}submit`, v2(order({return_url: 'http://user:secret@shop.example.com/back'})))
    expect(v2Page).toMatchObject({status: 400, type: expect.stringMatching(/^text\/html/)})
    expect(v2Page.text).toContain('return_url: must not carry a user name or password')
  })
})

describe('a V2 request with many fields and a bad sign', () => {
  it('answers 20052 at once and goes on serving: the diagnosis of someone else\'s parameters is bounded (it was quadratic in their number)', async () => {
    // 30,000 fields, about 300 KB: one "field dropped" string per field was 30,000 strings of 300 KB
    const padding = Object.fromEntries(Array.from({length: 30_000}, (_, i) => [`k${i}`, 'v']))
    const hostile = await send(`${V2}create`, {...v2({type: 'alipay', out_trade_no: unique('H'), name: 'VIP', money: '1.00'}), ...padding})
    expect(hostile.body).toMatchObject({code: 20052, msg: expect.stringMatching(/^signature verification failed \(RSA, the merchant public key\); server string to sign: k0=v&k1=v&/)})
    expect(await v2Call('create', {type: 'alipay', out_trade_no: unique('H'), name: 'VIP', money: '1.00'})).toMatchObject({code: 0})
    // an ordinary request still has its cause named
    const added = await send(`${V2}create`, {...v2({type: 'alipay', out_trade_no: unique('H'), name: 'VIP', money: '1.00'}), sitename: 'Shop'})
    expect(added.body).toMatchObject({code: 20052, msg: expect.stringContaining('likeliest cause: field added or dropped: the sign matches without `sitename`')})
  })

  it('answers a sign of 300,000 "=" and an "A" (900 KB form-encoded) with 20052 at once and goes on serving (trimming the padding by /=+$/ took minutes)', async () => {
    const hostile = await send(`${V2}create`, {...v2({type: 'alipay', out_trade_no: unique('H'), name: 'VIP', money: '1.00'}), sign: `${'='.repeat(300_000)}A`})
    expect(hostile.body).toMatchObject({code: 20052, msg: 'sign: not canonical Base64 (standard alphabet, padding, no whitespace): it has "=" at character 1: padding goes only at the end'})
    expect(await v2Call('create', {type: 'alipay', out_trade_no: unique('H'), name: 'VIP', money: '1.00'})).toMatchObject({code: 0})
  })
})

describe('after `sandbox clock advance 2h`, every V2 timestamp is still the real time', () => {
  let moved: TestSandbox
  beforeAll(async () => {
    moved = await testSandbox({pausedClock: true})
    await moved.advance(2 * 3600_000)
  })
  afterAll(async () => {
    await moved.close()
    removeDir(moved.dataDir)
  })

  it('answers, the return link and the notification verify within 300 s of real time', async () => {
    const receiver = await notifyReceiver()
    try {
      const outTradeNo = unique('T')
      const created = await v2Call('create', {type: 'alipay', method: 'web', out_trade_no: outTradeNo, name: 'VIP', money: '1.00', notify_url: receiver.url, return_url: 'http://127.0.0.1:1/back'}, moved)
      expect(created.code).toBe(0)
      const page = `${moved.sandbox.url}/epay/pay/${created.trade_no}`
      expect((await fetch(page, {method: 'POST', body: '', redirect: 'manual'})).status).toBe(303)
      const href = /id="return" href="([^"]+)"/.exec(await (await fetch(page)).text())![1].replaceAll('&amp;', '&')
      const back = Object.fromEntries(new URL(href).searchParams)
      expect(back).toMatchObject({trade_no: created.trade_no, type: 'alipay', trade_status: 'TRADE_SUCCESS'})
      expect(v2Accepts(back)).toBe(true)
      const [arrival] = await waitFor(() => receiver.arrivals.length > 0 && receiver.arrivals)
      expect(v2Accepts(arrival)).toBe(true)
      expect(await v2Call('query', {out_trade_no: outTradeNo}, moved)).toMatchObject({code: 0, status: 1})
      // the business times are the sandbox's: two hours ahead
      expect(Date.parse(`${arrival.endtime.replace(' ', 'T')}+08:00`) - Date.now()).toBeGreaterThan(3600_000)
    } finally {
      await receiver.close()
    }
  })
})

/** A shop's notify_url: records each GET's parameters and answers `success`. */
async function notifyReceiver(): Promise<{url: string; arrivals: Record<string, string>[]; close(): Promise<void>}> {
  const arrivals: Record<string, string>[] = []
  const server: Server = createServer((req, res) => {
    arrivals.push(Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams))
    res.writeHead(200, {'content-type': 'text/plain'}).end('success')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
