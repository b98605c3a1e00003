// The compatibility module of the sandbox, in-process: V1 (MD5) and V2 (RSA) requests as GET
// query or form POST, both type/method orders, the refusals, orders visible through /unipay/*,
// the payer page behind submit, and the easy_pay GET notification with its acknowledgement.
import {mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {verifyV2Answer} from '../../src/client/epay.js'
import {checkEasyPayCallback} from '../../src/protocol/callback.js'
import {epayStringToSign, signMd5, signRsa} from '../../src/protocol/epay.js'
import {endpoints} from '../../src/protocol/endpoints.js'
import {parseJsonObject} from '../../src/protocol/json.js'
import {ensureMd5Key} from '../../src/sandbox/epay/md5-key.js'
import type {Notification} from '../../src/sandbox/notifier.js'
import {controlHeaders, removeDir, useTestSandbox, waitFor} from '../helpers/sandbox.js'

const t = useTestSandbox({timeScale: 1000})
let md5Key = ''
let pid = ''
const V1 = '/epay/api/v1/'
const V2 = '/epay/api/v2/api/pay/'

beforeAll(async () => {
  pid = t.client.mchNo!
  md5Key = readFileSync(t.sandbox.runtime.merchant.md5KeyFile!, 'utf8').trim()
})

let seq = 0
const tradeNo = () => `ET${Date.now()}${++seq}`
const now = () => String(Math.floor(Date.now() / 1000))

function v1(params: Record<string, string>, form: 'direct' | 'param' = 'direct'): Record<string, string> {
  const all = {pid, ...params}
  return {...all, sign: signMd5(all, md5Key, form), sign_type: 'MD5'}
}

function v2(params: Record<string, string>, timestamp = now()): Record<string, string> {
  const all = {pid, ...params, timestamp}
  return {...all, sign: signRsa(all, t.client.privateKey!), sign_type: 'RSA'}
}

async function post(path: string, params: Record<string, string>, init: {method?: 'GET' | 'POST'} = {}) {
  const method = init.method ?? 'POST'
  const query = new URLSearchParams(params).toString()
  const response = await fetch(`${t.sandbox.url}${path}${method === 'GET' ? `?${query}` : ''}`, {
    method,
    headers: method === 'POST' ? {'content-type': 'application/x-www-form-urlencoded'} : {},
    body: method === 'POST' ? query : undefined,
    redirect: 'manual',
  })
  const text = await response.text()
  let body: Record<string, any> = {}
  try {
    body = JSON.parse(text)
  } catch {
    // pages and redirects
  }
  return {status: response.status, text, body, location: response.headers.get('location') ?? undefined}
}

/** A V2 answer, verified as the CLI verifies it (sign over the flat fields, timestamp window, data agreeing). */
function verified(text: string) {
  verifyV2Answer({platformKey: t.client.platformKey}, parseJsonObject(text))
  return JSON.parse(text) as Record<string, any>
}

const order = (extra: Record<string, string> = {}) => ({out_trade_no: tradeNo(), name: 'VIP会员', money: '1.00', ...extra})

async function queryPay(bizOrderNo: string) {
  return t.send(endpoints.queryPay, {bizOrderNo})
}

describe('V1 (MD5)', () => {
  it('creates by form POST and by GET query; the order is visible through /unipay/query/pay-order', async () => {
    const params = order({type: 'walletB', notify_url: 'http://127.0.0.1:1/notify', clientip: '192.168.1.100', device: 'pc', param: 'uid=42&plan=pro'})
    const created = await post(`${V1}mapi.php`, v1(params))
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      code: 1,
      msg: 'success',
      trade_no: expect.stringMatching(/^DP\d+$/),
      out_trade_no: params.out_trade_no,
      type: 'walletB',
      money: '1.00',
      pay_type: 'qrcode',
      qrcode: expect.stringMatching(/^walletB:\/\/pay\?orderNo=DP/),
      payurl: `${t.sandbox.url}/epay/pay/${created.body.trade_no}`,
      data: {orderNo: created.body.trade_no, payBodyType: 'qr_code'},
    })
    expect(created.body.sign).toBeUndefined()
    const queried = await queryPay(params.out_trade_no)
    expect(queried.data).toMatchObject({orderNo: created.body.trade_no, amount: 100, title: 'VIP会员', method: 'walletB_qr', status: 'progress', attach: 'uid=42&plan=pro'})

    const mobile = order({type: 'walletA', device: 'mobile'})
    const byGet = await post(`${V1}mapi.php`, v1(mobile), {method: 'GET'})
    expect(byGet.body).toMatchObject({code: 1, pay_type: 'jump'})
    expect((await queryPay(mobile.out_trade_no)).data.method).toBe('walletA_h5')
  })

  it('is idempotent on out_trade_no, and refuses its reuse with other parameters', async () => {
    const params = order({type: 'walletA'})
    const first = await post(`${V1}mapi.php`, v1(params))
    const again = await post(`${V1}mapi.php`, v1(params))
    expect(again.body.trade_no).toBe(first.body.trade_no)
    const other = await post(`${V1}mapi.php`, v1({...params, money: '2.00'}))
    expect(other.body).toMatchObject({code: -1, msg: `out_trade_no ${params.out_trade_no} was already used with different parameters`})
  })

  it('refuses RSA, a wrong sign and the &key= form with a clear message, creating nothing', async () => {
    const rsa = order({type: 'walletA'})
    const rsaAnswer = await post(`${V1}mapi.php`, {...v1(rsa), sign_type: 'RSA'})
    expect(rsaAnswer.body.code).toBe(-1)
    expect(rsaAnswer.body.msg).toContain('sign_type: V1 accepts MD5 only, not "RSA"')
    const tampered = order({type: 'walletA'})
    const tamperedAnswer = await post(`${V1}mapi.php`, {...v1(tampered), money: '0.01'})
    expect(tamperedAnswer.body.code).toBe(-1)
    expect(tamperedAnswer.body.msg).toContain('server string to sign: money=0.01&name=VIP会员')
    expect(tamperedAnswer.body.msg).toMatch(/\{MD5 key\}$/)
    expect(tamperedAnswer.text).not.toContain(md5Key)
    const keyParam = order({type: 'walletA'})
    const keyParamAnswer = await post(`${V1}mapi.php`, v1(keyParam, 'param'))
    expect(keyParamAnswer.body).toMatchObject({code: -1, msg: expect.stringContaining('the sign appends the MD5 key as `&key=KEY`')})
    for (const p of [rsa, tampered, keyParam]) await expect(queryPay(p.out_trade_no)).resolves.toMatchObject({code: 20041})
  })

  it('api.php?act=order authenticates with the plain key: status 0 unpaid, 1 paid', async () => {
    const params = order({type: 'walletC'})
    const created = await post(`${V1}mapi.php`, v1(params))
    const ask = (extra: Record<string, string>) => post(`${V1}api.php`, {act: 'order', pid, key: md5Key, ...extra})
    expect((await ask({out_trade_no: params.out_trade_no})).body).toMatchObject({code: 1, status: 0, trade_no: created.body.trade_no, money: '1.00', name: 'VIP会员', type: 'walletC'})
    await t.post('/_sandbox/pay', {order: created.body.trade_no})
    const paid = await ask({trade_no: created.body.trade_no})
    expect(paid.body).toMatchObject({code: 1, status: 1, out_trade_no: params.out_trade_no, endtime: expect.stringMatching(/^\d{4}-\d\d-\d\d /), data: {status: 'success', amount: 100}})
    const wrong = await post(`${V1}api.php`, {act: 'order', pid, key: `${md5Key}x`, out_trade_no: params.out_trade_no}, {method: 'GET'})
    expect(wrong.body).toMatchObject({code: -1, msg: 'key: does not match the merchant\'s MD5 key'})
    expect((await post(`${V1}api.php`, {act: 'query', pid, key: md5Key})).body.msg).toContain('use act=order')
  })

  it('submit.php answers 302 to a page where the payer pays; every value on it is escaped', async () => {
    const params = order({type: 'walletA', name: '<script>alert(1)</script>', return_url: 'http://127.0.0.1:1/back?x="y"'})
    const submitted = await post(`${V1}submit.php`, v1(params), {method: 'GET'})
    expect(submitted.status).toBe(302)
    expect(submitted.location).toMatch(new RegExp(`^${t.sandbox.url}/epay/pay/DP\\d+$`))
    const page = await fetch(submitted.location!)
    const html = await page.text()
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('<script>alert(1)')
    expect(html).toContain('data-status="progress"')
    const paid = await fetch(submitted.location!, {method: 'POST', body: '', redirect: 'manual'})
    expect(paid.status).toBe(303)
    expect((await queryPay(params.out_trade_no)).data.status).toBe('success')
    const after = await (await fetch(submitted.location!)).text()
    expect(after).toContain('data-status="success"')
    expect(after).toMatch(/id="return" href="http:\/\/127\.0\.0\.1:1\/back\?x=%22y%22&amp;pid=/)
  })
})

describe('V2 (RSA)', () => {
  it('creates in the spec\'s type/method order and in the swapped one; answers are signed with timestamp and sign_type', async () => {
    const spec = order({type: 'jump', method: 'walletA'})
    const a = verified((await post(`${V2}create`, v2(spec))).text)
    expect(a).toMatchObject({code: 0, sign_type: 'RSA', timestamp: expect.stringMatching(/^\d+$/), pay_type: 'jump', data: {payBodyType: 'link'}})
    expect((await queryPay(spec.out_trade_no)).data.method).toBe('walletA_h5')

    const swapped = order({type: 'walletB', method: 'web'})
    const b = verified((await post(`${V2}create`, v2(swapped), {method: 'GET'})).text)
    expect(b).toMatchObject({code: 0, type: 'walletB', pay_type: 'qrcode'})
    expect((await queryPay(swapped.out_trade_no)).data.method).toBe('walletB_qr')

    const aggregate = order({type: 'web'})
    verified((await post(`${V2}create`, v2(aggregate))).text)
    expect((await queryPay(aggregate.out_trade_no)).data.method).toBe('aggregate_pay_qrcode')

    const jsapi = verified((await post(`${V2}create`, v2(order({type: 'jsapi', method: 'walletA'})))).text)
    expect(jsapi).toMatchObject({code: 10506, msg: 'sub_openid: is required for walletA_jsapi'})
    const bad = verified((await post(`${V2}create`, v2(order({type: 'web', method: 'jump'})))).text)
    expect(bad).toMatchObject({code: 10506, msg: expect.stringContaining('method: "jump" does not go with type web')})
  })

  it.each([
    ['sign_type=MD5', (p: Record<string, string>) => ({...v2(p), sign_type: 'MD5'}), 10506, 'sign_type: V2 refuses MD5'],
    ['a stale timestamp', (p: Record<string, string>) => v2(p, String(Number(now()) - 301)), 10410, 'is 301 s behind the platform clock (at most 300 s allowed)'],
    ['a timestamp ahead', (p: Record<string, string>) => v2(p, String(Number(now()) + 400)), 10410, 'ahead of the platform clock'],
    ['a tampered money', (p: Record<string, string>) => ({...v2(p), money: '100.00'}), 20052, 'signature verification failed (RSA, the merchant public key); server string to sign: method=walletA&money=100.00&'],
    ['money 1.005', (p: Record<string, string>) => v2({...p, money: '1.005'}), 10506, 'money: "1.005" is not an amount in yuan with at most 2 decimals'],
    ['money 1e2', (p: Record<string, string>) => v2({...p, money: '1e2'}), 10506, 'money: "1e2" is not an amount'],
    ['money 0.00', (p: Record<string, string>) => v2({...p, money: '0.00'}), 10506, 'money: "0.00" is below the minimum of 0.01'],
    ['sign_type=SHA1', (p: Record<string, string>) => ({...v2(p), sign_type: 'SHA1'}), 10506, 'sign_type: must be RSA, not "SHA1"'],
    ['no timestamp', (p: Record<string, string>) => {
      const {timestamp: _, ...rest} = v2(p)
      return {...rest, sign: signRsa(rest, t.client.privateKey!)}
    }, 10506, 'timestamp: is required'],
  ])('refuses %s with a clear message and creates nothing', async (_name, make, code, message) => {
    const params = order({type: 'web', method: 'walletA'})
    const answer = await post(`${V2}create`, make(params))
    const body = verified(answer.text)
    expect(body.code).toBe(code)
    expect(body.msg).toContain(message)
    expect(body.data).toBeNull()
    await expect(queryPay(params.out_trade_no)).resolves.toMatchObject({code: 20041})
  })

  it('requires sign_type, as the spec does (it is outside the signed string, so the signature alone holds)', async () => {
    const params = order({type: 'web', method: 'walletA'})
    const {sign_type: _, ...without} = v2(params)
    expect(JSON.parse((await post(`${V2}create`, without)).text)).toMatchObject({code: 10506, msg: 'sign_type: is required: send sign_type=RSA'})
    expect(verified((await post(`${V2}create`, v2(params))).text)).toMatchObject({code: 0, out_trade_no: params.out_trade_no})
  })

  it('submit answers 302 to the payer page', async () => {
    const params = order({type: 'web', method: 'walletD'})
    const answer = await post(`${V2}submit`, v2(params))
    expect(answer.status).toBe(302)
    expect(answer.location).toMatch(/\/epay\/pay\/DP\d+$/)
  })

  it('queries, refunds, follows the refund (both paths) and closes; each answer verifies', async () => {
    const params = order({type: 'web', method: 'walletA', money: '12.50', param: 'p=1'})
    const created = verified((await post(`${V2}create`, v2(params))).text)
    const unpaid = verified((await post(`${V2}query`, v2({out_trade_no: params.out_trade_no}))).text)
    expect(unpaid).toMatchObject({code: 0, status: 0, money: '12.50', param: 'p=1', trade_no: created.trade_no, data: {status: 'progress', amount: 1250}})
    await t.post('/_sandbox/pay', {order: created.trade_no})
    const paid = verified((await post(`${V2}query`, v2({trade_no: created.trade_no}))).text)
    expect(paid).toMatchObject({status: 1, api_trade_no: expect.stringMatching(/^CH/), buyer: expect.any(String), data: {status: 'success', realAmount: 1250}})

    const refund = verified((await post(`${V2}refund`, v2({out_trade_no: params.out_trade_no, money: '2.50', out_refund_no: `R${params.out_trade_no}`}))).text)
    expect(refund).toMatchObject({code: 0, status: 'progress', money: '2.50', out_refund_no: `R${params.out_trade_no}`, refund_no: expect.stringMatching(/^RF/), data: {status: 'progress'}})
    const over = verified((await post(`${V2}refund`, v2({out_trade_no: params.out_trade_no, money: '10.01'}))).text)
    expect(over).toMatchObject({code: 20060})
    const settled = await waitFor(async () => {
      const answer = verified((await post(`${V2}refund_query`, v2({out_refund_no: `R${params.out_trade_no}`}))).text)
      return answer.status === 1 && answer
    })
    expect(settled).toMatchObject({trade_no: created.trade_no, money: '2.50', data: {amount: 250, orderAmount: 1250, status: 'success'}})
    const alias = verified((await post(`${V2}refundquery`, v2({refund_no: refund.refund_no}), {method: 'GET'})).text)
    expect(alias).toMatchObject({code: 0, out_refund_no: `R${params.out_trade_no}`})
    expect((await queryPay(params.out_trade_no)).data).toMatchObject({refundableBalance: 1000, refundStatus: 'partial_refund'})

    const closeable = order({type: 'web', method: 'walletB'})
    verified((await post(`${V2}create`, v2(closeable))).text)
    const closed = verified((await post(`${V2}close`, v2({out_trade_no: closeable.out_trade_no}))).text)
    expect(closed).toMatchObject({code: 0, status: 'close', data: {status: 'close'}})
    const again = verified((await post(`${V2}close`, v2({out_trade_no: params.out_trade_no}))).text)
    expect(again).toMatchObject({code: 20044})
    expect((await queryPay(closeable.out_trade_no)).data.status).toBe('close')
  })

  it('a signed answer whose sign is not canonical Base64 is refused by the client, however it decodes', async () => {
    const answer = JSON.parse((await post(`${V2}query`, v2({out_trade_no: 'none'}))).text) as Record<string, string>
    expect(() => verified(JSON.stringify(answer))).not.toThrow()
    for (const sign of [`${answer.sign}\n`, answer.sign.replace(/=+$/, ''), `${answer.sign.slice(0, 8)}!${answer.sign.slice(8)}`]) {
      expect(() => verified(JSON.stringify({...answer, sign}))).toThrow(/the answer's sign is not canonical Base64/)
    }
  })

  it('answers unknown paths, JSON bodies and unknown merchants clearly', async () => {
    expect((await post(`${V2}nope`, {})).status).toBe(404)
    const json = await fetch(`${t.sandbox.url}${V2}create`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
    expect(verified(await json.text())).toMatchObject({code: 10505})
    expect(verified((await post(`${V2}query`, {...v2({out_trade_no: 'x'}), pid: 'NOPE'})).text)).toMatchObject({code: 20023})
  })
})

describe('the easy_pay notification', () => {
  let server: Server
  let url = ''
  const arrivals: {method: string; url: string}[] = []
  const answers: {status: number; body: string}[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      arrivals.push({method: req.method ?? '', url: req.url ?? ''})
      const answer = answers.shift() ?? {status: 200, body: 'success'}
      res.writeHead(answer.status, {'content-type': 'text/plain'}).end(answer.body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const notifications = async () => (await (await fetch(`${t.sandbox.url}/_sandbox/notifications`, {headers: controlHeaders(t.sandbox.runtime)})).json()) as (Notification & {protocol?: string})[]
  const paramsOf = (arrival: {url: string}) => Object.fromEntries(new URL(arrival.url, 'http://x').searchParams)

  it('V2: a GET with the signed parameters, verified with the platform key; retried until answered success', async () => {
    answers.push({status: 200, body: 'fail'}, {status: 500, body: 'success'}, {status: 200, body: ' SUCCESS \n'})
    const params = order({type: 'web', method: 'walletB', notify_url: `${url}?shop=1`, param: 'uid=42'})
    const created = verified((await post(`${V2}create`, v2(params))).text)
    // No system POST for these orders: only this GET, on pay success.
    expect(arrivals).toHaveLength(0)
    await t.post('/_sandbox/pay', {order: created.trade_no})
    const delivered = await waitFor(async () => (await notifications()).find((n) => n.url.includes(created.trade_no) && n.state === 'delivered'))
    expect(delivered.protocol).toBe('easy_pay')
    expect(delivered.attempts.map((a) => [a.httpStatus, a.acknowledged])).toEqual([[200, false], [500, false], [200, true]])
    expect(arrivals).toHaveLength(3)
    // every attempt is signed afresh (a new timestamp and sign); everything else is the same
    const unsigned = (arrival: {url: string}) => {
      const {timestamp: _t, sign: _s, ...rest} = paramsOf(arrival)
      return {path: new URL(arrival.url, 'http://x').pathname, rest}
    }
    expect(arrivals.every((a) => a.method === 'GET')).toBe(true)
    expect(arrivals.map(unsigned)).toEqual(arrivals.map(() => unsigned(arrivals[0])))
    const received = paramsOf(arrivals[0])
    expect(received).toMatchObject({
      shop: '1',
      pid,
      trade_no: created.trade_no,
      out_trade_no: params.out_trade_no,
      type: 'walletB',
      name: 'VIP会员',
      money: '1.00',
      trade_status: 'TRADE_SUCCESS',
      param: 'uid=42',
      timestamp: expect.stringMatching(/^\d+$/),
      sign_type: 'RSA',
    })
    const {shop: _, ...signed} = received
    expect(checkEasyPayCallback(signed, {platformKey: t.client.platformKey}).verified).toBe(true)
    expect(checkEasyPayCallback({...signed, money: '9.00'}, {platformKey: t.client.platformKey}).verified).toBe(false)
  })

  it('V1: signed with the MD5 key; money with 2 decimals; no notification for close', async () => {
    arrivals.length = 0
    const params = order({type: 'walletA', money: '3', notify_url: url})
    const created = await post(`${V1}mapi.php`, v1(params))
    await t.post('/_sandbox/pay', {order: created.body.trade_no})
    await waitFor(() => arrivals.length === 1)
    const received = paramsOf(arrivals[0])
    expect(received).toMatchObject({money: '3.00', sign_type: 'MD5', trade_status: 'TRADE_SUCCESS'})
    expect(received.timestamp).toBeUndefined()
    expect(checkEasyPayCallback(received, {md5Key}).verified).toBe(true)
    expect(epayStringToSign(received)).toMatch(/^money=3\.00&name=VIP会员&out_trade_no=/)

    const closing = order({type: 'web', method: 'walletA', notify_url: url})
    verified((await post(`${V2}create`, v2(closing))).text)
    verified((await post(`${V2}close`, v2({out_trade_no: closing.out_trade_no}))).text)
    // A notification is recorded before the answer that caused it goes out (notifier.ts): the
    // sandbox's record, not a wait for what might still arrive, shows that the close made none.
    const about = async (outTradeNo: string) => (await notifications()).filter((n) => JSON.stringify(n).includes(outTradeNo))
    expect(await about(params.out_trade_no)).toHaveLength(1)
    expect(await about(closing.out_trade_no)).toEqual([])
    expect(arrivals).toHaveLength(1)
  })
})

describe('the merchant MD5 key', () => {
  it('is kept 0600 in the keys folder and published by path only', () => {
    const file = t.sandbox.runtime.merchant.md5KeyFile!
    expect(file.startsWith(t.dataDir)).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(md5Key).toMatch(/^[0-9a-f]{32}$/)
    expect(JSON.stringify(t.sandbox.runtime)).not.toContain(md5Key)
  })

  it('holds the key alone, with no trailing newline, so a client reading the file whole signs right; an older file loses its newline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-md5-'))
    try {
      const fresh = ensureMd5Key(dir, 'm')
      expect(readFileSync(fresh.file, 'utf8')).toBe(fresh.md5Key)
      writeFileSync(fresh.file, `${fresh.md5Key}\n`)
      expect(ensureMd5Key(dir, 'm').md5Key).toBe(fresh.md5Key)
      expect(readFileSync(fresh.file, 'utf8')).toBe(fresh.md5Key)
      expect(statSync(fresh.file).mode & 0o777).toBe(0o600)
    } finally {
      removeDir(dir)
    }
  })

})
