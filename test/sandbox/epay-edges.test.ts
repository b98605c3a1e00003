// Where epay shop clients met the sandbox's edges (issue 35): faults on /epay/*, browser-path
// refusals in the request log, MD5 keys of added merchants, epay words for wallets the payer
// picked, a doubled slash, a V2 jump's pay_info. Each request is written out as such a client
// sends it (its words, its parameters) and signed by an independent signer (node's md5 for V1,
// jsrsasign for V2); V2 answers are checked as those clients check them.
import {createHash, randomBytes} from 'node:crypto'
import {readFileSync, statSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import type {RequestLogEntry} from '../../src/protocol/sandbox-requests.js'
import {epayV2Sign, epayV2Verify} from '../helpers/sdk.js'
import {controlHeaders, useTestSandbox} from '../helpers/sandbox.js'

const PID = 'M1000000001'
const V1 = '/epay/api/v1/'
const V2 = '/epay/api/v2/api/pay/'

const t = useTestSandbox({timeScale: 1000})
const md5Key = () => readFileSync(t.sandbox.runtime.merchant.md5KeyFile!, 'utf8')
const unique = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`

/** A V1 shop client: non-empty parameters but sign and sign_type, sorted, k=v joined by &, the key appended, md5 hex. */
function v1(params: Record<string, string>, key = md5Key(), pid = PID): Record<string, string> {
  const all: Record<string, string> = {pid, ...params}
  const text = Object.keys(all).filter((k) => all[k] !== '').sort().map((k) => `${k}=${all[k]}`).join('&')
  return {...all, sign: createHash('md5').update(text + key, 'utf8').digest('hex'), sign_type: 'MD5'}
}

/** A V2 shop client: its parameters, the real time, an RSA sign over its selection, sign_type=RSA. */
function v2(params: Record<string, string>): Record<string, string> {
  const all = {pid: PID, ...params, timestamp: String(Math.floor(Date.now() / 1000))}
  return {...all, sign: epayV2Sign(all, t.merchantPem), sign_type: 'RSA'}
}

async function send(path: string, params: Record<string, string>) {
  const response = await fetch(`${t.sandbox.url}${path}`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams(params).toString(),
    redirect: 'manual',
  })
  const text = await response.text()
  const json = (response.headers.get('content-type') ?? '').startsWith('application/json')
  return {status: response.status, text, body: json ? (JSON.parse(text) as Record<string, any>) : {}, location: response.headers.get('location') ?? undefined}
}

/** What a V2 client accepts: the sign over the answer's flat scalars, with the platform key. */
function v2Accepts(fields: Record<string, unknown>): boolean {
  const flat = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && typeof v !== 'object').map(([k, v]) => [k, String(v)]))
  return epayV2Verify(flat, t.sandbox.runtime.platformPublicKeyPem)
}

const control = (method: string, path: string, body?: unknown) =>
  fetch(`${t.sandbox.url}/_sandbox/${path}`, {method, headers: controlHeaders(t.sandbox.runtime), body: body === undefined ? undefined : JSON.stringify(body)})

async function logged(path: string): Promise<RequestLogEntry> {
  const {entries} = (await (await control('GET', 'requests?limit=500')).json()) as {entries: RequestLogEntry[]}
  return entries.filter((entry) => entry.path === path).at(-1)!
}

describe('faults on /epay/*', () => {
  it('strike the epay call named, V2 and V1 alike', async () => {
    expect((await control('POST', 'faults', {fault: 'http-500', path: `${V2}query`})).status).toBe(200)
    const created = await send(`${V2}create`, v2({type: 'alipay', out_trade_no: unique('F'), name: 'VIP', money: '1.00'}))
    expect(created.body.code).toBe(0)
    const struck = await send(`${V2}query`, v2({trade_no: created.body.trade_no}))
    expect(struck.status).toBe(500)
    expect((await send(`${V2}query`, v2({trade_no: created.body.trade_no}))).body).toMatchObject({code: 0, status: 0})
    // a signature fault spoils a V2 answer as a client sees it: it no longer verifies
    expect((await control('POST', 'faults', {fault: 'bad-signature', path: `${V2}query`})).status).toBe(200)
    const spoiled = await send(`${V2}query`, v2({trade_no: created.body.trade_no}))
    expect(spoiled.body.code).toBe(0)
    expect(v2Accepts(spoiled.body)).toBe(false)
    expect((await control('POST', 'faults', {fault: 'not-json', path: `${V1}mapi.php`})).status).toBe(200)
    const v1Struck = await send(`${V1}mapi.php`, v1({type: 'alipay', out_trade_no: unique('F'), name: 'VIP', money: '1.00'}))
    expect(v1Struck.text).toContain('502 Bad Gateway (injected fault)')
  })

  it('are refused when added where they make no sense, saying why: nothing to sign on V1 or a browser path, a path no call goes to', async () => {
    const refused = async (fault: string, path: string) => {
      const answer = await control('POST', 'faults', {fault, path})
      expect(answer.status).toBe(400)
      return ((await answer.json()) as {code: number; message: string}).message
    }
    expect(await refused('bad-signature', `${V1}mapi.php`)).toBe(
      `bad-signature makes no sense on ${V1}mapi.php: epay V1 answers are never signed, so there is no signature to spoil or leave out; it strikes signed answers (/unipay/*, epay V2 at ${V2})`,
    )
    expect(await refused('unsigned-success', `${V2}submit`)).toMatch(/^unsigned-success makes no sense on \/epay\/api\/v2\/api\/pay\/submit: it answers the payer's browser \(a redirect or an HTML page\), which carries no signature/)
    expect(await refused('http-500', `${V2}cancel`)).toMatch(/^path: no call goes to \/epay\/api\/v2\/api\/pay\/cancel: faults strike/)
    expect(await refused('http-500', '/unipay/paid')).toMatch(/^path: no call goes to \/unipay\/paid/)
    expect((await (await control('GET', 'faults')).json()) as unknown[]).toEqual([])
  })
})

describe('browser-path refusals in the request log', () => {
  it('carry the diagnosis the API path gets: submit.php signed with the MD5 key plus a newline', async () => {
    const params = {type: 'alipay', out_trade_no: unique('S'), name: 'VIP', money: '1.00'}
    const page = await send(`${V1}submit.php`, v1(params, `${md5Key()}\n`))
    expect(page.status).toBe(400)
    const entry = await logged(`${V1}submit.php`)
    expect(entry).toMatchObject({status: 400, code: '-1', message: expect.stringContaining('the MD5 key was signed with a newline after it')})
    expect(JSON.stringify(entry)).not.toContain(md5Key())
    const api = await send(`${V1}mapi.php`, v1(params, `${md5Key()}\n`))
    expect((await logged(`${V1}mapi.php`)).message).toBe(api.body.msg)
    expect(entry.message).toBe(api.body.msg)
    // V2 submit: the platform code of the refusal
    const stale = {pid: PID, type: 'alipay', out_trade_no: unique('S'), name: 'VIP', money: '1.00', timestamp: String(Math.floor(Date.now() / 1000) - 1000)}
    await send(`${V2}submit`, {...stale, sign: epayV2Sign(stale, t.merchantPem), sign_type: 'RSA'})
    expect(await logged(`${V2}submit`)).toMatchObject({status: 400, code: '10410', message: expect.stringContaining('behind the platform clock')})
  })
})

describe('V1 for a merchant added with a numeric pid (epay shops use 1001)', () => {
  it('gets an MD5 key in a 0600 file the control API names; a shop signs with it; it can be replaced', async () => {
    const added = (await (await control('POST', 'merchants', {mchNo: '1001', publicKeyPem: generateRsaKeyPair().publicKeyPem})).json()) as {epayV1Md5KeyFile: string}
    expect(statSync(added.epayV1Md5KeyFile).mode & 0o777).toBe(0o600)
    const key = readFileSync(added.epayV1Md5KeyFile, 'utf8')
    expect(key).toMatch(/^[0-9a-f]{32}$/)
    expect(key).not.toBe(md5Key())
    const listed = (await (await control('GET', 'merchants')).json()) as {mchNo: string; epayV1Md5KeyFile: string}[]
    expect(listed.find((m) => m.mchNo === '1001')?.epayV1Md5KeyFile).toBe(added.epayV1Md5KeyFile)
    const order = {type: 'alipay', out_trade_no: unique('N'), name: 'VIP', money: '1.00'}
    expect((await send(`${V1}mapi.php`, v1(order, key, '1001'))).body).toMatchObject({code: 1, trade_no: expect.stringMatching(/^DP/)})
    // the shop's own key, set for the merchant
    const shopKey = 'Kx9fT2pQ7vL4wZ8mN1cR6bY3hJ5sD0aG'
    const set = await control('POST', 'merchants/settings', {mchNo: '1001', md5Key: shopKey})
    expect(await set.json()).toEqual({mchNo: '1001', allocAmountUnit: 'yuan', epayV1Md5KeyFile: added.epayV1Md5KeyFile})
    expect(readFileSync(added.epayV1Md5KeyFile, 'utf8')).toBe(shopKey)
    expect((await send(`${V1}mapi.php`, v1({...order, out_trade_no: unique('N')}, shopKey, '1001'))).body).toMatchObject({code: 1})
    expect((await send(`${V1}mapi.php`, v1({...order, out_trade_no: unique('N')}, key, '1001'))).body).toMatchObject({code: -1})
    const spaced = await control('POST', 'merchants/settings', {mchNo: '1001', md5Key: 'two words'})
    expect(spaced.status).toBe(400)
    expect(await spaced.json()).toEqual({code: 10506, message: 'md5Key: 1-128 printable ASCII characters, no spaces or line breaks'})
  })
})

describe('epay words for the wallet the payer picked (protocol-notes §7)', () => {
  it('a V1 submit without type: the cashier offers only the wallets epay has words for; the payer picks walletB; everything says alipay', async () => {
    const outTradeNo = unique('S')
    const submitted = await send(`${V1}submit.php`, v1({out_trade_no: outTradeNo, name: 'VIP', money: '1.50', return_url: 'http://127.0.0.1:1/back', sitename: 'Shop'}))
    expect(submitted.status).toBe(302)
    const cashier = await (await fetch(submitted.location!)).text()
    expect(cashier).toContain('id="pay-walletA"')
    expect(cashier).toContain('id="pay-walletB"')
    expect(cashier).not.toContain('id="pay-walletC"')
    expect(cashier).not.toContain('id="pay-walletD"')
    const picked = await fetch(submitted.location!, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'wallet=walletB', redirect: 'manual'})
    expect(picked.status).toBe(303)
    const href = /id="return" href="([^"]+)"/.exec(await (await fetch(submitted.location!)).text())![1].replaceAll('&amp;', '&')
    const back = Object.fromEntries(new URL(href).searchParams)
    expect(back).toMatchObject({out_trade_no: outTradeNo, type: 'alipay', trade_status: 'TRADE_SUCCESS'})
    expect(v1(Object.fromEntries(Object.entries(back).filter(([k]) => k !== 'pid' && k !== 'sign' && k !== 'sign_type'))).sign).toBe(back.sign)
    const queried = await send(`${V1}api.php`, {act: 'order', pid: PID, key: md5Key(), out_trade_no: outTradeNo})
    expect(queried.body).toMatchObject({code: 1, status: 1, type: 'alipay'})
  })

  it('an epay order is never paid with a wallet that has no epay word, on any page', async () => {
    const created = await send(`${V2}create`, v2({type: 'aggregate', method: 'web', out_trade_no: unique('A'), name: 'VIP', money: '1.00'}))
    expect(created.body.code).toBe(0)
    const refused = await control('POST', 'pay', {order: created.body.trade_no, wallet: 'walletC'})
    expect(await refused.json()).toEqual({
      code: 10506,
      message: `wallet: order ${created.body.trade_no} was made through the epay module, whose clients have no word for walletC: pay it with walletA (wxpay) or walletB (alipay)`,
    })
    // the aggregate QR scanned in walletD's app
    const scanned = await fetch(`${t.sandbox.url}/aggregate/${created.body.trade_no}/pay`, {method: 'POST', headers: {'user-agent': 'Mozilla/5.0 WalletD/3.1', 'content-type': 'application/x-www-form-urlencoded'}, body: '', redirect: 'manual'})
    expect(await scanned.text()).toContain('whose clients have no word for walletD')
    const query = await send(`${V2}query`, v2({trade_no: created.body.trade_no}))
    expect(query.body).toMatchObject({code: 0, status: 0, type: 'aggregate'})
    expect((await control('POST', 'pay', {order: created.body.trade_no, wallet: 'walletA'})).status).toBe(200)
  })

  it('an order made by /unipay/* and read through epay names its wallet in epay words', async () => {
    const outTradeNo = unique('U')
    const paid = await t.send(endpoints.pay, {bizOrderNo: outTradeNo, title: 'Tea', amount: 100, authCode: '134567890123456789'})
    expect(paid.data.status).toBe('success')
    expect((await send(`${V2}query`, v2({out_trade_no: outTradeNo}))).body).toMatchObject({code: 0, status: 1, type: 'wxpay'})
  })
})

describe('paths and links as shops build them', () => {
  it('accepts a doubled slash under /epay/ (a base ending in / plus a path starting with one)', async () => {
    const created = await send(`${V1}/mapi.php`, v1({type: 'wxpay', out_trade_no: unique('D'), name: 'VIP', money: '1.00'}))
    expect(created.body).toMatchObject({code: 1, type: 'wxpay'})
    const v2Created = await send('/epay/api/v2//api/pay//create', v2({type: 'alipay', out_trade_no: unique('D'), name: 'VIP', money: '1.00'}))
    expect(v2Created.body.code).toBe(0)
    expect(v2Accepts(v2Created.body)).toBe(true)
  })

  it('a V2 jump answer\'s pay_info is the sandbox\'s payer page, where the payer pays', async () => {
    const created = await send(`${V2}create`, v2({type: 'jump', method: 'alipay', out_trade_no: unique('J'), name: 'VIP', money: '1.00', clientip: '127.0.0.1'}))
    expect(created.body).toMatchObject({code: 0, pay_type: 'jump'})
    expect(v2Accepts(created.body)).toBe(true)
    expect(created.body.pay_info).toBe(`${t.sandbox.url}/epay/pay/${created.body.trade_no}`)
    expect(created.body.pay_info).toBe(created.body.payurl)
    const page = await fetch(created.body.pay_info)
    expect(page.status).toBe(200)
    const paid = await fetch(created.body.pay_info, {method: 'POST', body: '', redirect: 'manual'})
    expect(paid.status).toBe(303)
    expect((await send(`${V2}query`, v2({trade_no: created.body.trade_no}))).body).toMatchObject({status: 1, type: 'alipay'})
  })
})
