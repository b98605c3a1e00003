import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {flattenToStrings} from '../../src/protocol/canonical.js'
import {signMd5, signRsa} from '../../src/protocol/epay.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {sdkSigned} from '../helpers/sdk.js'
import {startListener, type Arrival, type ListenOptions} from '../../src/services/listen.js'
import {freePort} from '../helpers/sandbox.js'

const fixture = JSON.parse(readFileSync(new URL('../fixtures/epay-sign.json', import.meta.url), 'utf8'))
const platformPrivate = loadPrivateKey(fixture.v2.keys.platform_private_key_pkcs8_b64)
const platformKey = loadPublicKey(fixture.v2.keys.platform_public_key_spki_b64)
const merchantPrivate = loadPrivateKey(fixture.v2.keys.merchant_private_key_pkcs8_b64)
const md5Key: string = fixture.v1.md5Key
const md5Notify: Record<string, string> = fixture.v1.vectors.find((v: {kind: string}) => v.kind === 'notification').params
const rsaNotify: Record<string, string> = fixture.v2.vectors.find((v: {kind: string}) => v.kind === 'notification').params

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function listener(options: Partial<ListenOptions> = {}) {
  const arrivals: Arrival[] = []
  const started = await startListener({port: 0, platformKey, md5Key, onArrival: (a) => arrivals.push(a), ...options})
  cleanups.push(() => started.close())
  return {url: started.notifyUrl, arrivals}
}

/** A merchant app on a random port that records what it gets and answers `answer`. */
async function app(answer = {status: 200, body: 'SUCCESS'}) {
  const received: {method: string; url: string; contentType?: string; body: string}[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      received.push({method: req.method!, url: req.url!, contentType: req.headers['content-type'], body})
      res.writeHead(answer.status, {'content-type': 'text/plain'}).end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())))
  return {url, received}
}

/** A system callback as the platform sends it: flattened data, signed envelope. */
function systemCallback(event: string, data: Record<string, unknown>): string {
  const envelope = {code: 0, msg: 'success', data: flattenToStrings(data), resTime: '2026-11-22 10:30:00', reqId: 'N1', event, eventId: 'e1', protocol: 'system', mchNo: 'M1000000001', appId: 'A1000000001'}
  return JSON.stringify(sdkSigned(envelope, platformPrivate.export({type: 'pkcs8', format: 'pem'}) as string))
}

const post = (url: string, body: string, contentType = 'application/json; charset=utf-8') =>
  fetch(url, {method: 'POST', headers: {'content-type': contentType}, body}).then(async (r) => ({status: r.status, text: await r.text()}))
const get = (url: string, params: Record<string, string>) => fetch(`${url}?${new URLSearchParams(params)}`).then(async (r) => ({status: r.status, text: await r.text()}))

const paySuccess = {orderNo: 'DP20261122000001', bizOrderNo: 'P1', tradeNo: 'T9', amount: 1250, status: 'success', title: '咖啡', terminalNo: 'POS1'}

describe('system callbacks', () => {
  it('answers SUCCESS to a verified callback and records it', async () => {
    const {url, arrivals} = await listener()
    const raw = systemCallback('pay.success', paySuccess)
    expect(await post(url, raw)).toEqual({status: 200, text: 'SUCCESS'})
    expect(arrivals).toHaveLength(1)
    expect(arrivals[0]).toMatchObject({
      protocol: 'system',
      method: 'POST',
      path: '/notify',
      event: 'pay.success',
      numbers: {orderNo: 'DP20261122000001', bizOrderNo: 'P1', tradeNo: 'T9'},
      amount: '1250',
      status: 'success',
      signType: 'RSA',
      verified: true,
      answer: {status: 200, body: 'SUCCESS'},
      rawBody: raw,
    })
    expect(arrivals[0].reason).toBeUndefined()
    expect(Number.isNaN(Date.parse(arrivals[0].time))).toBe(false)
    expect(arrivals[0].time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/)
  })

  it('does not acknowledge a callback with one changed field, and says why', async () => {
    const {url, arrivals} = await listener()
    const tampered = systemCallback('pay.success', paySuccess).replace('"amount":"1250"', '"amount":"1"')
    const answer = await post(url, tampered)
    expect(answer.status).toBe(400)
    expect(answer.text).toMatch(/^signature not verified: no common variant verifies/)
    expect(arrivals[0]).toMatchObject({verified: false, amount: '1', answer: {status: 400}})
    expect(arrivals[0].reason).toMatch(/^no common variant verifies: the body was changed after signing/)
  })

  it('names a field added after signing', async () => {
    const {url, arrivals} = await listener()
    const raw = systemCallback('pay.success', paySuccess)
    const added = raw.replace('"code":0', '"code":0,"extra":"x"')
    expect((await post(url, added)).status).toBe(400)
    expect(arrivals[0].reason).toMatch(/field added or dropped: the signature matches without `extra`/)
  })

  it('does not acknowledge when it has no platform key, or the callback has no sign', async () => {
    const {url, arrivals} = await listener({platformKey: undefined})
    expect((await post(url, systemCallback('pay.success', paySuccess))).status).toBe(400)
    const unsigned = JSON.parse(systemCallback('pay.success', paySuccess))
    delete unsigned.sign
    expect((await post(url, JSON.stringify(unsigned))).status).toBe(400)
    expect(arrivals.map((a) => a.reason)).toEqual(['no platform public key to verify with', 'no sign field'])
  })

  const events: [string, Record<string, unknown>, Record<string, string>][] = [
    ['pay.success', paySuccess, {orderNo: 'DP20261122000001', bizOrderNo: 'P1', tradeNo: 'T9'}],
    ['pay.fail', {...paySuccess, status: 'fail', errorMsg: 'declined'}, {orderNo: 'DP20261122000001', bizOrderNo: 'P1', tradeNo: 'T9'}],
    ['pay.close', {...paySuccess, status: 'timeout'}, {orderNo: 'DP20261122000001', bizOrderNo: 'P1', tradeNo: 'T9'}],
    ['refund.success', {refundNo: 'DR1', bizRefundNo: 'R1', orderNo: 'DP1', bizOrderNo: 'P1', amount: 50, status: 'success'}, {refundNo: 'DR1', bizRefundNo: 'R1', orderNo: 'DP1', bizOrderNo: 'P1'}],
    ['refund.fail', {refundNo: 'DR2', bizRefundNo: 'R2', amount: 50, status: 'fail'}, {refundNo: 'DR2', bizRefundNo: 'R2'}],
    ['refund.close', {refundNo: 'DR3', bizRefundNo: 'R3', amount: 50, status: 'close'}, {refundNo: 'DR3', bizRefundNo: 'R3'}],
    [
      'alloc.success',
      {allocNo: 'DA1', bizAllocNo: 'A1', orderNo: 'DP1', amount: 80, status: 'partial', details: [{receiverAccount: 'r1', amount: '0.50', result: 'success'}, {receiverAccount: 'r2', amount: '0.30', result: 'fail'}]},
      {allocNo: 'DA1', bizAllocNo: 'A1', orderNo: 'DP1'},
    ],
    ['alloc.fail', {allocNo: 'DA2', bizAllocNo: 'A2', amount: 80, status: 'fail'}, {allocNo: 'DA2', bizAllocNo: 'A2'}],
    ['transfer.success', {transferNo: 'DT1', bizTransferNo: 'B1', amount: 1000, status: 'success'}, {transferNo: 'DT1', bizTransferNo: 'B1'}],
    ['transfer.fail', {transferNo: 'DT2', bizTransferNo: 'B2', amount: 1000, status: 'fail'}, {transferNo: 'DT2', bizTransferNo: 'B2'}],
    ['transfer.close', {transferNo: 'DT3', bizTransferNo: 'B3', amount: 1000, status: 'close'}, {transferNo: 'DT3', bizTransferNo: 'B3'}],
  ]

  it.each(events)('verifies %s and shows its business numbers, amount and status', async (event, data, numbers) => {
    const {url, arrivals} = await listener()
    expect(await post(url, systemCallback(event, data))).toEqual({status: 200, text: 'SUCCESS'})
    expect(arrivals[0]).toMatchObject({event, verified: true, numbers, amount: String(data.amount), status: data.status})
    expect(Object.keys(arrivals[0].numbers).sort()).toEqual(Object.keys(numbers).sort())
  })
})

describe('easy_pay callbacks', () => {
  it('verifies an MD5 (V1) notification and answers success', async () => {
    const {url, arrivals} = await listener()
    expect(await get(url, md5Notify)).toEqual({status: 200, text: 'success'})
    expect(arrivals[0]).toMatchObject({
      protocol: 'easy_pay',
      method: 'GET',
      signType: 'MD5',
      verified: true,
      numbers: {trade_no: '2024010112000012345', out_trade_no: 'T20240101001'},
      amount: '100',
      status: 'TRADE_SUCCESS',
      answer: {status: 200, body: 'success'},
      rawBody: new URLSearchParams(md5Notify).toString(),
    })
  })

  it('verifies an RSA (V2) notification with the platform key and answers success', async () => {
    const {url, arrivals} = await listener({now: () => new Date((Number(rsaNotify.timestamp) + 299) * 1000)})
    expect(await get(url, rsaNotify)).toEqual({status: 200, text: 'success'})
    expect(arrivals[0]).toMatchObject({signType: 'RSA', verified: true, numbers: {trade_no: '2024010112000012345', out_trade_no: 'T20240101003', api_trade_no: '4200001234202401010000000001'}})
  })

  it('does not acknowledge an RSA (V2) notification whose timestamp is over 300 s off, so the platform sends a fresh one', async () => {
    const {url, arrivals} = await listener({now: () => new Date((Number(rsaNotify.timestamp) + 301) * 1000)})
    const answer = await get(url, rsaNotify)
    expect(answer.status).toBe(400)
    expect(answer.text).toBe(`signature not verified: the signature holds, but its timestamp ${rsaNotify.timestamp} is 301 s old (V2 clients refuse more than 300 s): have the platform send it again, with a fresh timestamp`)
    expect(arrivals[0]).toMatchObject({signType: 'RSA', verified: false})

    // the resend, stamped and signed afresh, is taken (on the real clock)
    const fresh = {...rsaNotify, timestamp: String(Math.floor(Date.now() / 1000))}
    const {url: live} = await listener()
    expect(await get(live, {...fresh, sign: signRsa(fresh, platformPrivate)})).toEqual({status: 200, text: 'success'})
  })

  it('does not acknowledge a changed amount, a wrong MD5 key, or an RSA sign by another key', async () => {
    const {url, arrivals} = await listener({otherKeys: [{name: 'the merchant key', key: loadPublicKey(fixture.v2.keys.merchant_public_key_spki_b64)}]})
    expect((await get(url, {...md5Notify, money: '9.99'})).status).toBe(400)
    expect(arrivals[0]).toMatchObject({verified: false, amount: '999'})
    expect(arrivals[0].reason).toMatch(/no common variant verifies: the parameters were changed after signing, or they were signed with another MD5 key/)

    const {url: other, arrivals: others} = await listener({md5Key: 'another key'})
    expect((await get(other, md5Notify)).status).toBe(400)
    expect(others[0].verified).toBe(false)

    const byMerchant = {...rsaNotify, sign: signRsa(rsaNotify, merchantPrivate)}
    expect((await get(url, byMerchant)).status).toBe(400)
    expect(arrivals[1].reason).toMatch(/^wrong key: the string is right, but it was signed with the merchant key/)
  })

  it('explains an MD5 sign made with &key=', async () => {
    const {url, arrivals} = await listener()
    expect((await get(url, {...md5Notify, sign: signMd5(md5Notify, md5Key, 'param')})).status).toBe(400)
    expect(arrivals[0].reason).toBe('MD5 key appended as `&key=KEY`, while the rule appends it directly')
    expect(JSON.stringify(arrivals[0])).not.toContain(md5Key)
  })

  it('answers easy_pay notifications with many fields at once, one after another: the diagnosis is bounded (it was quadratic in their number)', async () => {
    const {url, arrivals} = await listener({now: () => new Date(Number(rsaNotify.timestamp) * 1000)})
    // as long a query as a request line may be (16 KB): about 1,800 parameters added to a signed V2 notification
    const padding = Array.from({length: 1_800}, (_, i) => `k${i}=v`).join('&')
    for (let i = 0; i < 100; i++) {
      const answer = await fetch(`${url}?${new URLSearchParams(rsaNotify).toString()}&${padding}`)
      expect(answer.status).toBe(400)
    }
    expect(arrivals[0].reason).toMatch(/^no common variant verifies/)
    expect(await get(url, rsaNotify)).toEqual({status: 200, text: 'success'})
  })

  it('does not acknowledge an MD5 notification without an MD5 key', async () => {
    const {url, arrivals} = await listener({md5Key: undefined})
    expect((await get(url, md5Notify)).status).toBe(400)
    expect(arrivals[0].reason).toBe('no MD5 key to verify with')
  })
})

describe('forwarding', () => {
  it('relays a verified callback unchanged and answers with the app\'s answer', async () => {
    const target = await app()
    const {url, arrivals} = await listener({forwardTo: `${target.url}/shop/notify`})
    const raw = systemCallback('pay.success', paySuccess)
    expect(await post(url, raw)).toEqual({status: 200, text: 'SUCCESS'})
    expect(target.received).toEqual([{method: 'POST', url: '/shop/notify', contentType: 'application/json; charset=utf-8', body: raw}])
    expect(arrivals[0]).toMatchObject({verified: true, forward: {url: `${target.url}/shop/notify`, status: 200}, answer: {status: 200, body: 'SUCCESS'}})

    const query = new URLSearchParams(md5Notify).toString()
    expect(await get(`${url}/epay`, md5Notify)).toEqual({status: 200, text: 'SUCCESS'})
    expect(target.received[1]).toMatchObject({method: 'GET', url: `/shop/notify/epay?${query}`})
  })

  it('answers with the app\'s failure, so that the platform retries', async () => {
    const target = await app({status: 500, body: 'database down'})
    const {url, arrivals} = await listener({forwardTo: target.url})
    expect(await post(url, systemCallback('pay.success', paySuccess))).toEqual({status: 500, text: 'database down'})
    expect(arrivals[0]).toMatchObject({verified: true, forward: {status: 500}, answer: {status: 500, body: 'database down'}})
  })

  it('answers 502 when the app is down, and keeps running', async () => {
    const down = await freePort()
    const target = `http://127.0.0.1:${down}/notify`
    const {url, arrivals} = await listener({forwardTo: target})
    const answer = await post(url, systemCallback('pay.success', paySuccess))
    expect(answer.status).toBe(502)
    expect(answer.text).toBe(`forward target ${target} failed: ECONNREFUSED`)
    expect(arrivals[0]).toMatchObject({verified: true, forward: {url: target, error: 'ECONNREFUSED'}, answer: {status: 502}})
    expect((await post(url, systemCallback('pay.close', paySuccess))).status).toBe(502)
    expect(arrivals).toHaveLength(2)
  })

  it('never forwards a callback that does not verify', async () => {
    const target = await app()
    const {url} = await listener({forwardTo: target.url})
    const tampered = systemCallback('pay.success', paySuccess).replace('"status":"success"', '"status":"fail"')
    expect((await post(url, tampered)).status).toBe(400)
    expect(target.received).toHaveLength(0)
  })
})

describe('bad input', () => {
  it('answers each with a reason, records it, and keeps running', async () => {
    const {url, arrivals} = await listener()
    const base = url.replace(/\/notify$/, '')
    expect((await post(url, 'not json')).status).toBe(400)
    expect((await post(url, '[1]')).status).toBe(400)
    expect((await post(`${base}/elsewhere`, systemCallback('pay.success', paySuccess))).status).toBe(404)
    expect((await post(url, 'x'.repeat(1024 * 1024 + 1))).status).toBe(413)
    expect((await fetch(url, {method: 'PUT', body: '{}'})).status).toBe(405)
    expect((await fetch(url)).status).toBe(400)
    expect((await get(url, {...md5Notify, sign_type: 'SHA1'})).status).toBe(400)
    expect(arrivals.map((a) => [a.answer.status, a.verified, a.reason])).toEqual([
      [400, false, expect.stringMatching(/^body is not a JSON object/)],
      [400, false, 'body is not a JSON object: expected a JSON object'],
      [404, false, 'unknown path /elsewhere: callbacks go to /notify'],
      [413, false, 'body over 1048576 bytes'],
      [405, false, 'method not allowed: callbacks are POST (system) or GET (easy_pay)'],
      [400, false, 'no query string: easy_pay callbacks carry their fields in the query'],
      [400, false, 'unknown sign_type "SHA1" (expected MD5 or RSA)'],
    ])
    expect(arrivals[3].rawBody).toBe('')
    expect(await post(url, systemCallback('pay.success', paySuccess))).toEqual({status: 200, text: 'SUCCESS'})
  })
})
