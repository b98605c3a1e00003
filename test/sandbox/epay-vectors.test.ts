// Every vector of ../shared/vectors/epay-sign.json (test/fixtures/epay-sign.json), end to end:
// the client builds each request vector byte for byte, a sandbox holding the vectors' keys (its
// clock at the vectors' timestamp) accepts each request vector as sent, and its notifications
// for the vectors' orders follow the notification vectors' rule.
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildEpayRequest, verifyV2Answer, type EpayConfig} from '../../src/client/epay.js'
import {checkEasyPayCallback} from '../../src/protocol/callback.js'
import {epayStringToSign} from '../../src/protocol/epay.js'
import {parseJsonObject} from '../../src/protocol/json.js'
import {generateRsaKeyPair, loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {createSandboxApp, type SandboxApp} from '../../src/sandbox/app.js'
import {md5KeyFiles} from '../../src/sandbox/epay.js'
import type {Notification} from '../../src/sandbox/notifier.js'
import {Store} from '../../src/sandbox/store.js'
import {controlHeaders} from '../helpers/sandbox.js'

interface Vector {
  name: string
  kind: 'request' | 'notification'
  endpoint: string
  params: Record<string, string>
  canonicalString: string
  sign: string
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/epay-sign.json', import.meta.url), 'utf8')) as {
  v1: {pid: string; md5Key: string; vectors: Vector[]}
  v2: {pid: string; keys: Record<string, string>; vectors: Vector[]}
}
const {keys} = fixture.v2
const TIMESTAMP = 1_700_000_000
const all = [...fixture.v1.vectors.map((v) => ['v1', v] as const), ...fixture.v2.vectors.map((v) => ['v2', v] as const)]

let dir: string
let store: Store
let app: SandboxApp
let server: Server
let url = ''
const CONTROL_SECRET = 'test-control-secret'

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'unipay-epay-vectors-'))
  store = new Store(join(dir, 'journal.jsonl')).open()
  const md5Keys = md5KeyFiles(join(dir, 'keys'), {mchNo: 'M1000000001'})
  md5Keys.set(fixture.v1.pid, fixture.v1.md5Key)
  app = createSandboxApp({
    store,
    platformPrivateKeyPem: keys.platform_private_key_pkcs8_b64,
    loginPrivateKeyPem: generateRsaKeyPair().privateKeyPem,
    now: () => new Date(TIMESTAMP * 1000),
    publicUrl: () => url,
    controlSecret: CONTROL_SECRET,
    epayMd5Keys: md5Keys,
  })
  app.registerMerchant({mchNo: fixture.v2.pid, appIds: ['A1001'], defaultAppId: 'A1001', publicKeyPem: keys.merchant_public_key_spki_b64})
  server = createServer((req, res) => void app.handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  app.stop()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  store.close()
  rmSync(dir, {recursive: true, force: true})
})

const pathOf = (vector: Vector) => new URL(vector.endpoint.split(' ')[1], 'http://x').pathname
const post = async (path: string, params: Record<string, string>, method: 'GET' | 'POST' = 'POST') => {
  const query = new URLSearchParams(params).toString()
  const response = await fetch(`${url}${path}${method === 'GET' ? `?${query}` : ''}`, {
    method,
    headers: method === 'POST' ? {'content-type': 'application/x-www-form-urlencoded'} : {},
    body: method === 'POST' ? query : undefined,
    redirect: 'manual',
  })
  return {status: response.status, text: await response.text(), location: response.headers.get('location')}
}

describe('the client builds every request vector exactly', () => {
  const config: EpayConfig = {
    baseUrl: 'http://127.0.0.1:8080',
    pid: '1001',
    md5Key: fixture.v1.md5Key,
    privateKey: loadPrivateKey(keys.merchant_private_key_pkcs8_b64),
    verify: true,
    now: () => new Date(TIMESTAMP * 1000),
  }
  it.each(all.filter(([, v]) => v.kind === 'request').map(([version, v]) => [v.name, version, v] as const))('%s', (_name, version, vector) => {
    const {pid: _, sign, ...fields} = vector.params
    const request = buildEpayRequest(config, {version, path: pathOf(vector), fields, kind: 'create'})
    expect(request.params.sign).toBe(sign)
    expect(request.params.sign_type).toBe(version === 'v1' ? 'MD5' : 'RSA')
    expect(request.canonicalString).toBe(version === 'v1' ? `${vector.canonicalString}{MD5 key}` : vector.canonicalString)
    expect(JSON.stringify(request)).not.toContain(fixture.v1.md5Key)
  })
})

describe('the sandbox accepts every request vector as sent', () => {
  it('v1_mapi_basic (POST mapi.php): created, unsigned V1 answer', async () => {
    const vector = fixture.v1.vectors.find((v) => v.name === 'v1_mapi_basic')!
    const answer = await post(pathOf(vector), vector.params)
    expect(JSON.parse(answer.text)).toMatchObject({code: 1, out_trade_no: 'T20240101001', money: '1.00', type: 'walletB'})
  })

  it('v1_submit_special_chars (GET and POST submit.php): 302 to the payer page, the same order both times', async () => {
    const vector = fixture.v1.vectors.find((v) => v.name === 'v1_submit_special_chars')!
    const byGet = await post(pathOf(vector), vector.params, 'GET')
    const byPost = await post(pathOf(vector), vector.params)
    expect(byGet.status).toBe(302)
    expect(byGet.location).toMatch(/\/epay\/pay\/DP\d+$/)
    expect(byPost.location).toBe(byGet.location)
  })

  it('v2_create, v2_query, v2_refund: accepted at the vectors\' time, signed answers verify', async () => {
    const verify = (text: string) => {
      verifyV2Answer({platformKey: loadPublicKey(keys.platform_public_key_spki_b64), now: () => new Date(TIMESTAMP * 1000)}, parseJsonObject(text))
      return JSON.parse(text)
    }
    // the request vectors list what is signed and the sign; sign_type (outside the signed string) travels beside them
    const [create, query, refund] = ['v2_create', 'v2_query', 'v2_refund']
      .map((name) => fixture.v2.vectors.find((v) => v.name === name)!)
      .map((vector) => ({...vector, params: {...vector.params, sign_type: 'RSA'}}))
    const created = verify((await post(pathOf(create), create.params)).text)
    // the vector sends type=walletB and method=web: the common clients' order
    expect(created).toMatchObject({code: 0, type: 'walletB', pay_type: 'qrcode', out_trade_no: 'T20240101003', money: '1.00', timestamp: String(TIMESTAMP), sign_type: 'RSA'})
    expect(verify((await post(pathOf(query), query.params)).text)).toMatchObject({code: 0, status: 0, trade_no: created.trade_no})
    const paid = await fetch(`${url}/_sandbox/pay`, {method: 'POST', headers: controlHeaders({controlSecret: CONTROL_SECRET}), body: JSON.stringify({order: created.trade_no})})
    expect(paid.status).toBe(200)
    expect(verify((await post(pathOf(query), query.params, 'GET')).text)).toMatchObject({code: 0, status: 1})
    expect(verify((await post(pathOf(refund), refund.params)).text)).toMatchObject({code: 0, money: '0.50', out_refund_no: 'R20240101001', data: {status: 'progress'}})
    // the same refund again is the same refund (idempotent out_refund_no)
    expect(verify((await post(pathOf(refund), refund.params)).text)).toMatchObject({code: 0, out_refund_no: 'R20240101001'})
  })
})

describe('notifications follow the notification vectors', () => {
  const fromStore = (outTradeNo: string) => {
    const notification = store.values<Notification>('notifications').find((n) => n.url.includes(`out_trade_no=${outTradeNo}&`))!
    expect(notification).toBeDefined()
    return Object.fromEntries(new URL(notification.url).searchParams)
  }

  it('the vectors themselves verify by the rule (MD5 key, platform key)', () => {
    for (const [version, vector] of all.filter(([, v]) => v.kind === 'notification')) {
      expect(epayStringToSign(vector.params)).toBe(vector.canonicalString)
      const keysFor = version === 'v1' ? {md5Key: fixture.v1.md5Key} : {platformKey: loadPublicKey(keys.platform_public_key_spki_b64)}
      expect(checkEasyPayCallback(vector.params, keysFor).verified).toBe(true)
    }
  })

  it('v1_notify_money_2dp: the sandbox\'s notification for the V1 order has the vector\'s fields and verifies', async () => {
    const vector = fixture.v1.vectors.find((v) => v.name === 'v1_notify_money_2dp')!
    const created = JSON.parse((await post('/epay/api/v1/mapi.php', fixture.v1.vectors[0].params)).text)
    await fetch(`${url}/_sandbox/pay`, {method: 'POST', headers: controlHeaders({controlSecret: CONTROL_SECRET}), body: JSON.stringify({order: created.trade_no})})
    const sent = fromStore('T20240101001')
    const {trade_no: _t, sign: _s, ...expected} = vector.params
    expect(sent).toMatchObject({...expected, trade_no: created.trade_no, sign_type: 'MD5'})
    expect(Object.keys(sent).sort()).toEqual([...Object.keys(vector.params), 'sign_type'].sort())
    expect(checkEasyPayCallback(sent, {md5Key: fixture.v1.md5Key}).verified).toBe(true)
  })

  it('v2_notify: the sandbox\'s notification for the V2 order has the vector\'s fields, timestamp included, and verifies', () => {
    const vector = fixture.v2.vectors.find((v) => v.name === 'v2_notify')!
    const sent = fromStore('T20240101003')
    // the vector's fields, and the order's addtime and endtime, which the real platform sends too
    expect(Object.keys(sent).filter((k) => k !== 'param').sort()).toEqual([...Object.keys(vector.params).filter((k) => k !== 'param'), 'addtime', 'endtime'].sort())
    expect(sent).toMatchObject({pid: '1001', out_trade_no: 'T20240101003', type: 'walletB', name: 'VIP会员', money: '1.00', trade_status: 'TRADE_SUCCESS', timestamp: String(TIMESTAMP), sign_type: 'RSA'})
    expect(checkEasyPayCallback(sent, {platformKey: loadPublicKey(keys.platform_public_key_spki_b64)}).verified).toBe(true)
  })
})
