// `epay v1 ...` and `epay v2 ...` against the local sandbox, as a user runs them: create, submit,
// query, refund, refund-query, close end to end, the easy_pay notification shown verified by
// `listen`, the profile switches, money checked before sending, and no secret in any output.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SandboxRuntime} from '../../src/protocol/local-sandbox.js'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {startListen} from '../helpers/listen.js'
import {waitFor} from '../helpers/sandbox.js'

let c: Cli
let runtime: SandboxRuntime
let md5Key = ''
beforeAll(async () => {
  c = cli()
  // Callback retries 100 times faster.
  await startPausedSandbox(c)
  runtime = JSON.parse(readFileSync(join(c.dir, 'data', 'unipay', 'sandbox', 'runtime.json'), 'utf8'))
  md5Key = readFileSync(runtime.merchant.md5KeyFile!, 'utf8').trim()
})
afterAll(async () => {
  await c.cleanup()
})

const noSecret = (text: string) => {
  expect(text).not.toContain(md5Key)
  expect(text).not.toContain('PRIVATE KEY')
}

describe('epay v2 end to end with the local profile', () => {
  it('creates (verified), shows the order in the normal queries, pays, queries, refunds, follows the refund, closes', async () => {
    const created = await c.json(['epay', 'v2', 'create', '--method', 'walletB', '--name', 'VIP会员', '--money', '12.50', '--param', 'uid=42'])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain('✓ answer signature verified with the platform public key (timestamp within 300 s)')
    const {outTradeNo} = created.body
    expect(outTradeNo).toMatch(/^E\d{14}[0-9A-F]{8}$/)
    expect(created.body.data).toMatchObject({orderNo: expect.stringMatching(/^DP/), payBodyType: 'qr_code'})
    expect(created.body.response).toMatchObject({code: 0, sign_type: 'RSA', timestamp: expect.any(String), money: '12.50', out_trade_no: outTradeNo})
    const {orderNo} = created.body.data

    const normal = await c.json(['query', 'pay', '--biz-order-no', outTradeNo])
    expect(normal.body.data).toMatchObject({orderNo, amount: 1250, title: 'VIP会员', method: 'walletB_qr', attach: 'uid=42', status: 'progress'})

    const unpaid = await c.run(['epay', 'v2', 'query', '--out-trade-no', outTradeNo])
    expect(unpaid.code).toBe(0)
    expect(unpaid.stdout).toMatch(/^status\tprogress$/m)
    expect(unpaid.stdout).toMatch(/^amount \(yuan\)\t12\.50$/m)
    expect((await c.run(['sandbox', 'pay', orderNo])).code).toBe(0)
    const paid = await c.json(['epay', 'v2', 'query', '--trade-no', orderNo])
    expect(paid.body.data).toMatchObject({status: 'success'})
    // realAmount is only in data, which the signature does not cover: not shown as believed
    expect(paid.body.data.realAmount).toBeUndefined()
    expect(paid.body.response.data.realAmount).toBe(1250)
    expect(paid.body.response.status).toBe(1)

    const refund = await c.json(['epay', 'v2', 'refund', '--out-trade-no', outTradeNo, '--money', '2.50'])
    expect(refund.code).toBe(0)
    expect(refund.body.outRefundNo).toMatch(/^ER\d{14}/)
    expect(refund.body.data).toMatchObject({status: 'progress', bizRefundNo: refund.body.outRefundNo})
    // the channel settles it a second later
    expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
    const settled = await c.json(['epay', 'v2', 'refund-query', '--out-refund-no', refund.body.outRefundNo])
    expect(settled.body.data).toMatchObject({status: 'success', amount: 250, bizOrderNo: outTradeNo})
    expect(settled.body.response.data.orderAmount).toBe(1250) // not vouched for by the signature
    expect((await c.json(['query', 'pay', '--biz-order-no', outTradeNo])).body.data).toMatchObject({refundableBalance: 1000, refundStatus: 'partial_refund'})

    const tooMuch = await c.run(['epay', 'v2', 'refund', '--out-trade-no', outTradeNo, '--money', '10.01'])
    expect(tooMuch.code).toBe(1)
    expect(tooMuch.stderr).toMatch(/platform error 20060: money 10.01 is over what can still be refunded of trade_no \S+ \(10.00 yuan\)/)

    const other = await c.json(['epay', 'v2', 'create', '--type', 'jump', '--method', 'walletA', '--name', 'T', '--money', '1'])
    const closed = await c.json(['epay', 'v2', 'close', '--out-trade-no', other.body.outTradeNo])
    expect(closed.code).toBe(0)
    expect(closed.body.data.status).toBe('close')
    // closed again by its trade_no: a request signed over other fields, so within the same second
    // it is not the first one replayed (same timestamp and signature: 10409)
    const again = await c.run(['epay', 'v2', 'close', '--trade-no', other.body.data.orderNo])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/platform error 20044: order \S+ is close/)
  })

  it('submit prints the 302 target, a page where the payer pays', async () => {
    const submitted = await c.run(['epay', 'v2', 'submit', '--method', 'walletA', '--name', 'Tea', '--money', '3.00'])
    expect(submitted.code).toBe(0)
    const location = submitted.stdout.trim()
    expect(location).toMatch(new RegExp(`^${runtime.url}/epay/pay/DP\\d+$`))
    expect(submitted.stderr).toContain('HTTP 302')
    const page = await fetch(location)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Tea')
    expect((await fetch(location, {method: 'POST', redirect: 'manual'})).status).toBe(303)
    const json = await c.json(['epay', 'v2', 'submit', '--name', 'Any wallet', '--money', '0.01'])
    expect(json.body.data).toMatchObject({location: expect.stringMatching(/\/epay\/pay\/DP/), httpStatus: 302, outTradeNo: expect.any(String)})
  })

  it('refuses bad money before sending anything (exit 2, named by flag)', async () => {
    for (const money of ['1.005', '1e2', '-1', '0', '1,00', ' 1.00']) {
      const answer = await c.json(['epay', 'v2', 'create', '--method', 'walletA', '--name', 'x', '--money', money])
      expect(answer.code).toBe(2)
      expect(answer.body.error.problems[0]).toMatchObject({flag: '--money'})
    }
    const bad = await c.run(['epay', 'v2', 'create', '--type', 'jsapi', '--name', 'x', '--money', '1'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--method: is required for --type jsapi')
  })

  it('--debug shows the string to sign and the exchange; --dry-run prints the signed request', async () => {
    const debug = await c.run(['epay', 'v2', 'create', '--method', 'walletC', '--name', 'D', '--money', '1.00', '--debug'])
    expect(debug.code).toBe(0)
    expect(debug.stderr).toMatch(/\[debug\] string to sign: method=walletC&money=1\.00&name=D&out_trade_no=E\S+&pid=M1000000001&timestamp=\d+&type=web/)
    expect(debug.stderr).toMatch(/\[debug\] HTTP 200/)
    noSecret(debug.stdout + debug.stderr)
    const dry = await c.json(['epay', 'v2', 'create', '--method', 'walletC', '--name', 'D', '--money', '1.00', '--dry-run'])
    expect(dry.body).toMatchObject({ok: true, dryRun: true, request: {method: 'POST', url: `${runtime.url}/epay/api/v2/api/pay/create`, params: {type: 'web', method: 'walletC', sign_type: 'RSA'}}})
  })
})

describe('epay v1 with the local profile (MD5 key from the sandbox\'s key file)', () => {
  it('creates, submits and queries; the key never appears, not even with --debug or --dry-run', async () => {
    const created = await c.json(['epay', 'v1', 'create', '--type', 'walletA', '--name', 'V1 order', '--money', '0.10', '--debug'])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain('V1 answers are not signed')
    expect(created.stderr).toMatch(/string to sign: money=0\.10&name=V1 order&out_trade_no=E\S+&pid=M1000000001&type=walletA\{MD5 key\}/)
    noSecret(JSON.stringify(created))
    const {outTradeNo} = created.body
    expect((await c.json(['query', 'pay', '--biz-order-no', outTradeNo])).body.data).toMatchObject({amount: 10, method: 'walletA_qr'})

    const query = await c.json(['epay', 'v1', 'query', '--out-trade-no', outTradeNo, '--debug'])
    expect(query.code).toBe(0)
    expect(query.body.response).toMatchObject({status: 0, money: '0.10'})
    expect(query.stderr).toContain('"key": "(redacted)"')
    noSecret(JSON.stringify(query))
    const dry = await c.json(['epay', 'v1', 'query', '--trade-no', created.body.data.orderNo, '--dry-run'])
    expect(dry.body.request.params).toMatchObject({act: 'order', key: '(redacted)', trade_no: created.body.data.orderNo})
    noSecret(JSON.stringify(dry))

    expect((await c.run(['sandbox', 'pay', created.body.data.orderNo])).code).toBe(0)
    expect((await c.json(['epay', 'v1', 'query', '--out-trade-no', outTradeNo])).body.response.status).toBe(1)

    const submitted = await c.run(['epay', 'v1', 'submit', '--type', 'walletB', '--name', 'S', '--money', '1'])
    expect(submitted.code).toBe(0)
    expect(submitted.stdout.trim()).toMatch(/\/epay\/pay\/DP\d+$/)
  })

  it('takes the key from --md5-key-file, and a wrong key is refused by the platform', async () => {
    const wrong = join(c.dir, 'wrong.key')
    writeFileSync(wrong, 'not-the-key\n', {mode: 0o600})
    const answer = await c.run(['epay', 'v1', 'create', '--name', 'x', '--money', '1', '--md5-key-file', wrong])
    expect(answer.code).toBe(1)
    expect(answer.stderr).toMatch(/platform error -1: signature verification failed \(MD5\); server string to sign: .*\{MD5 key\}/)
    expect((await c.run(['epay', 'v1', 'query', '--out-trade-no', 'x', '--md5-key-file', wrong])).stderr).toContain('key: does not match')
  })
})

describe('profiles with the epay switches', () => {
  beforeAll(async () => {
    const platform = join(c.dir, 'platform.pem')
    writeFileSync(platform, runtime.platformPublicKeyPem)
    const add = (name: string) =>
      c.run(['profile', 'add', name, '--environment', 'sandbox', '--base-url', runtime.url, '--mch-no', runtime.merchant.mchNo, '--private-key-file', runtime.merchant.privateKeyFile, '--platform-public-key-file', platform])
    expect((await add('swapped')).code).toBe(0)
    expect((await c.run(['profile', 'set', 'epayTypeMethodSwapped', 'true', '--profile', 'swapped'])).code).toBe(0)
    expect((await add('keyparam')).code).toBe(0)
    expect((await c.run(['profile', 'set', 'md5Key', '-', '--profile', 'keyparam'], {input: md5Key})).code).toBe(0)
    expect((await c.run(['profile', 'set', 'md5KeyAppendForm', 'key-param', '--profile', 'keyparam'])).code).toBe(0)
  })

  it('epayTypeMethodSwapped sends type=wallet and method=web, which the sandbox takes too', async () => {
    const dry = await c.json(['epay', 'v2', 'create', '--method', 'walletD', '--name', 'S', '--money', '1', '--profile', 'swapped', '--dry-run'])
    expect(dry.body.request.params).toMatchObject({type: 'walletD', method: 'web'})
    const created = await c.json(['epay', 'v2', 'create', '--method', 'walletD', '--type', 'jump', '--name', 'S', '--money', '1', '--profile', 'swapped'])
    expect(created.code).toBe(0)
    expect((await c.json(['query', 'pay', '--biz-order-no', created.body.outTradeNo])).body.data.method).toBe('walletD_h5')
  })

  it('md5KeyAppendForm=key-param signs with &key=; the sandbox merchant (direct form) says so', async () => {
    const dry = await c.json(['epay', 'v1', 'create', '--name', 'K', '--money', '1', '--profile', 'keyparam', '--dry-run'])
    expect(dry.body.request.canonicalString).toMatch(/^money=1&name=K&out_trade_no=E\S+&pid=M1000000001&key=\{MD5 key\}$/)
    noSecret(JSON.stringify(dry))
    const sent = await c.run(['epay', 'v1', 'create', '--name', 'K', '--money', '1', '--profile', 'keyparam'])
    expect(sent.code).toBe(1)
    expect(sent.stderr).toContain('the sign appends the MD5 key as `&key=KEY`, but this merchant appends it directly')
  })
})

describe('the easy_pay notification through listen', () => {
  it('a paid V2 order and a paid V1 order each arrive as a GET that listen shows verified', async () => {
    const l = await startListen(c, ['--port', '0'])
    try {
      const v2 = await c.json(['epay', 'v2', 'create', '--method', 'walletA', '--name', 'N2', '--money', '5.00', '--notify-url', l.url, '--param', 'order=7'])
      const v1 = await c.json(['epay', 'v1', 'create', '--type', 'walletB', '--name', 'N1', '--money', '0.5', '--notify-url', l.url])
      expect((await c.run(['sandbox', 'pay', v2.body.data.orderNo])).code).toBe(0)
      expect((await c.run(['sandbox', 'pay', v1.body.data.orderNo])).code).toBe(0)
      const arrivals = await waitFor(() => l.lines.length >= 2 && l.lines.map((line) => JSON.parse(line)))
      const byOrder = (orderNo: string) => arrivals.find((a) => a.numbers.trade_no === orderNo)
      expect(byOrder(v2.body.data.orderNo)).toMatchObject({protocol: 'easy_pay', method: 'GET', signType: 'RSA', verified: true, amount: '500', status: 'TRADE_SUCCESS', answer: {status: 200, body: 'success'}})
      expect(byOrder(v1.body.data.orderNo)).toMatchObject({protocol: 'easy_pay', signType: 'MD5', verified: true, amount: '50', answer: {status: 200, body: 'success'}})
      const list = await c.json(['sandbox', 'callbacks', 'list'])
      const delivered = list.body.data.filter((n: {url: string; state: string}) => n.url.startsWith(l.url) && n.state === 'delivered')
      expect(delivered).toHaveLength(2)
      noSecret(l.lines.join('\n') + l.stderr())
    } finally {
      await l.stop('SIGINT')
    }
  })
})
