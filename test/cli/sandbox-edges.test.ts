// The sandbox's edges through the CLI (issue 35): the local profile's allocation unit, MD5 keys of
// added merchants, faults refused on /epay/*, epay triggers in epay words on the sandbox clock,
// and a mistyped data folder.
import {createHash} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AllocCreateResult} from '../../src/commands/alloc/index.js'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import type {Notification} from '../../src/protocol/notifications.js'
import {compactGmt8} from '../../src/protocol/time.js'
import {cli, type Cli} from '../helpers/cli.js'
import {startListen} from '../helpers/listen.js'
import {runtimeIn, waitFor} from '../helpers/sandbox.js'

let c: Cli
let url = ''
const MCH = 'M1000000001'

beforeAll(async () => {
  c = cli()
  url = (await c.json(['sandbox', 'start'])).body.data.url
})
afterAll(async () => {
  await c.run(['sandbox', 'stop'])
  await c.cleanup()
})

describe('allocation amounts in the unit the sandbox merchant reads', () => {
  it('the local profile takes it from the sandbox (2.00 yuan is 200 cents); a profile that disagrees is warned', async () => {
    expect((await c.run(['sandbox', 'merchants', 'set', MCH, '--alloc-amount-unit', 'cents'])).code).toBe(0)
    try {
      const order = (await c.json(['pay', 'create', '--title', 'Split', '--amount', '1000', '--auth-code', '134567890123456789', '--allocation'])).body.data
      expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', '1900000109', '--name', 'Shop'])).code).toBe(0)
      const receiver = ['--receiver', 'MERCHANT_ID:1900000109:2.00:Shop']
      const dry = await c.dryRun<AllocCreateResult>(['alloc', '--biz-order-no', order.bizOrderNo, '--biz-alloc-no', 'AL-LOCAL', ...receiver])
      expect(dry.request.body.receivers).toEqual([{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', amount: 200, receiverName: 'Shop'}])
      const created = await c.run(['alloc', '--biz-order-no', order.bizOrderNo, '--biz-alloc-no', 'AL-LOCAL', ...receiver])
      expect(created.code, created.stderr).toBe(0)
      expect(created.stderr).not.toContain('warning')
      await waitFor(async () => (await c.json(['query', 'alloc', '--biz-alloc-no', 'AL-LOCAL'])).body.data.status === 'success', 30_000)
      const query = await c.run(['query', 'alloc', '--biz-alloc-no', 'AL-LOCAL'])
      expect(query.stdout).toMatch(/^amount \(yuan\)\s+2\.00$/m)
      expect(query.stdout).toMatch(/^MERCHANT_ID\t1900000109\tShop\t2\.00\tsuccess/m)
      expect((await c.json(['query', 'pay', '--order-no', order.orderNo])).body.data.refundableBalance).toBe(800)

      // a profile of the same merchant at the same sandbox, left at the spec's yuan
      const runtime = runtimeIn(c.env.XDG_DATA_HOME!)
      const platformFile = join(c.dir, 'platform.pub')
      writeFileSync(platformFile, runtime.platformPublicKeyPem)
      const added = await c.run(['profile', 'add', 'yuanish', '--environment', 'sandbox', '--base-url', url, '--mch-no', MCH, '--app-id', 'A1000000001', '--private-key-file', runtime.merchant.privateKeyFile, '--platform-public-key-file', platformFile])
      expect(added.code, added.stderr).toBe(0)
      const warned = await c.run(['query', 'alloc', '--biz-alloc-no', 'AL-LOCAL', '--profile', 'yuanish'])
      expect(warned.code).toBe(0)
      expect(warned.stderr).toContain(
        `warning: profile yuanish sends allocation amounts in yuan, but the local sandbox at ${url} reads merchant ${MCH}'s in cents: \`unipay profile set allocAmountUnit cents --profile yuanish\``,
      )
      const dryYuan = await c.run(['alloc', '--biz-order-no', order.bizOrderNo, ...receiver, '--profile', 'yuanish', '--dry-run'])
      expect(dryYuan.stderr).toContain('warning: profile yuanish sends allocation amounts in yuan')
      expect((await c.run(['profile', 'set', 'allocAmountUnit', 'cents', '--profile', 'yuanish'])).code).toBe(0)
      expect((await c.run(['query', 'alloc', '--biz-alloc-no', 'AL-LOCAL', '--profile', 'yuanish'])).stderr).not.toContain('warning')
    } finally {
      await c.run(['sandbox', 'merchants', 'set', MCH, '--alloc-amount-unit', 'yuan'])
    }
  })
})

describe('sandbox merchants add 1001 (epay shops use numeric pids)', () => {
  it('gives the merchant an MD5 key that V1 checks, named by `sandbox credentials`, replaced from a file, never printed', async () => {
    const publicFile = join(c.dir, '1001.pub')
    writeFileSync(publicFile, generateRsaKeyPair().publicKeyPem)
    const added = await c.run(['sandbox', 'merchants', 'add', '1001', '--public-key-file', publicFile])
    expect(added.code, added.stderr).toBe(0)
    const keyFile = /its epay V1 MD5 key is in (\S+)/.exec(added.stderr)![1]
    const credentials = await c.json(['sandbox', 'credentials'])
    expect(credentials.body.data.merchants).toContainEqual({mchNo: '1001', appId: 'A1001', allocAmountUnit: 'yuan', epayV1Md5KeyFile: keyFile})
    expect((await c.run(['sandbox', 'credentials'])).stdout).toContain(`epayV1Md5KeyFile 1001\t${keyFile}`)

    /** The V1 shop's create: every non-empty parameter but sign and sign_type, sorted, the key appended. */
    const create = async (key: string) => {
      const params: Record<string, string> = {pid: '1001', type: 'alipay', out_trade_no: `N${Date.now()}${Math.random()}`.slice(0, 30), name: 'VIP', money: '1.00', sitename: 'Shop'}
      const text = Object.keys(params).sort().map((k) => `${k}=${params[k]}`).join('&')
      const body = new URLSearchParams({...params, sign: createHash('md5').update(text + key).digest('hex'), sign_type: 'MD5'})
      return (await (await fetch(`${url}/epay/api/v1/mapi.php`, {method: 'POST', body})).json()) as {code: number; msg: string}
    }
    const issued = readFileSync(keyFile, 'utf8')
    expect(await create(issued)).toMatchObject({code: 1})

    // the shop's key, from a file written with an editor's trailing newline
    const shopKey = 'Kx9fT2pQ7vL4wZ8mN1cR6bY3hJ5sD0aG'
    const shopFile = join(c.dir, 'shop-md5.key')
    writeFileSync(shopFile, `${shopKey}\n`, {mode: 0o600})
    const set = await c.run(['sandbox', 'merchants', 'set', '1001', '--md5-key-file', shopFile])
    expect(set).toMatchObject({code: 0, stdout: '1001\tallocAmountUnit=yuan\n'})
    expect(set.stderr).toContain(`the MD5 key of 1001 is set (kept in ${keyFile})`)
    for (const output of [set.stdout, set.stderr, added.stdout, added.stderr, JSON.stringify(credentials.body)]) {
      expect(output).not.toContain(shopKey)
      expect(output).not.toContain(issued)
    }
    expect(await create(shopKey)).toMatchObject({code: 1})
    expect(await create(issued)).toMatchObject({code: -1})
    const nothing = await c.run(['sandbox', 'merchants', 'set', '1001'])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toContain('nothing to set: give --alloc-amount-unit, --md5-key-file or both')
  })
})

describe('sandbox faults add on /epay/*', () => {
  it('refuses a fault that makes no sense there, saying why (exit 2); arms one that does', async () => {
    const v1 = await c.run(['sandbox', 'faults', 'add', 'bad-signature', '--path', '/epay/api/v1/mapi.php'])
    expect(v1.code).toBe(2)
    expect(v1.stderr).toContain('--path: bad-signature makes no sense on /epay/api/v1/mapi.php: epay V1 answers are never signed')
    const typo = await c.run(['sandbox', 'faults', 'add', 'http-500', '--path', '/epay/api/v2/api/pay/qeury'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('--path: no call goes to /epay/api/v2/api/pay/qeury')
    const armed = await c.json(['sandbox', 'faults', 'add', 'http-500', '--path', '/epay/api/v2/api/pay/query'])
    expect(armed.body.data).toMatchObject({fault: 'http-500', path: '/epay/api/v2/api/pay/query'})
    // struck once, then retried (a read) and answered
    const query = await c.run(['epay', 'v2', 'query', '--out-trade-no', 'E-none', '--debug'])
    expect(query.stderr).toContain('retrying a read after')
    expect(query.stderr).toContain('HTTP 500')
    expect((await c.json(['sandbox', 'faults', 'list'])).body.data).toEqual([])
  })
})

describe('a mistyped data folder', () => {
  it('every command but `sandbox start` says there is no sandbox in it (exit 2), and starts nothing there', async () => {
    const typo = join(c.dir, 'sandbox-stat')
    const cases: [string[], NodeJS.ProcessEnv][] = [
      [['sandbox', 'open', '--print', '--data-dir', typo], {}],
      [['sandbox', 'clock', 'advance', '1h', '--data-dir', typo], {}],
      [['sandbox', 'status', '--data-dir', typo], {}],
      [['sandbox', 'stop', '--data-dir', typo], {}],
      [['sandbox', 'credentials'], {UNIPAY_SANDBOX_DIR: typo}],
      [['sandbox', 'logs'], {UNIPAY_SANDBOX_DIR: typo}],
      [['sandbox', 'trigger', 'pay.success', '--notify-url', 'http://127.0.0.1:1/notify'], {UNIPAY_SANDBOX_DIR: typo}],
      [['listen', '--port', '0', '--data-dir', typo], {}],
    ]
    for (const [args, env] of cases) {
      const result = await c.run(args, {env})
      expect({args, code: result.code}).toEqual({args, code: 2})
      expect(result.stderr).toContain(`no sandbox in ${typo} (named by ${env.UNIPAY_SANDBOX_DIR ? 'UNIPAY_SANDBOX_DIR' : '--data-dir'}): \`unipay sandbox start --data-dir ${typo}\` starts one there`)
    }
    expect(existsSync(typo)).toBe(false)
  })

  it('listen --data-dir verifies with the key of the sandbox in that folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-beside-'))
    try {
      const other = (await c.json(['sandbox', 'start', '--data-dir', dir])).body.data
      const listen = await startListen(c, ['--port', '0', '--data-dir', dir])
      try {
        await waitFor(() => listen.stderr().includes(`verifying with the local sandbox's platform key (`) && listen.stderr())
        expect(listen.stderr()).toMatch(new RegExp(`platform key \\(SHA256:\\S+, at ${other.url.replaceAll('.', '\\.')}\\)`))
      } finally {
        await listen.stop('SIGINT')
      }
    } finally {
      await c.run(['sandbox', 'stop', '--data-dir', dir])
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

// last: it moves the sandbox clock 40 days ahead
describe('sandbox trigger epay.v1 and epay.v2', () => {
  it('send epay words (alipay), and both order numbers follow the moved sandbox clock', async () => {
    expect((await c.run(['sandbox', 'clock', 'advance', '40d'])).code).toBe(0)
    const realDay = compactGmt8(new Date()).slice(0, 8)
    for (const event of ['epay.v1', 'epay.v2']) {
      const triggered = (await c.json(['sandbox', 'trigger', event, '--notify-url', 'http://127.0.0.1:1/notify'])).body.data as {tradeNo: string; outTradeNo: string}
      const day = triggered.tradeNo.slice(2, 10)
      expect(day).not.toBe(realDay)
      expect(triggered.outTradeNo.slice(1, 9)).toBe(day)
      const notification = await waitFor(async () => ((await c.json(['sandbox', 'callbacks', 'list'])).body.data as Notification[]).find((n) => n.url.includes(`trade_no=${triggered.tradeNo}`)))
      expect(Object.fromEntries(new URL(notification.url).searchParams)).toMatchObject({type: 'alipay', out_trade_no: triggered.outTradeNo, trade_status: 'TRADE_SUCCESS'})
    }
  })
})
