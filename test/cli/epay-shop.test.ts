// The epay commands and the local sandbox as a shop's own epay client meets them: the epay guide's
// compatibility section run as written, what `sandbox credentials` gives such a client (and the
// client working from exactly that), a sign made with a newline after the MD5 key diagnosed in
// `sandbox logs`, V1's code 1 / -1 through `epay v1`, refundmoney in `epay v2 query`'s table,
// orderId in `epay v2 create --json`, and `epay v2` and `sandbox trigger epay.v2` after
// `sandbox clock advance 2h`.
import {createHash, randomBytes} from 'node:crypto'
import {copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {runtimeIn, waitFor} from '../helpers/sandbox.js'
import {runScript} from '../helpers/script.js'
import {epayV2Sign, epayV2Verify} from '../helpers/sdk.js'

const GUIDE = fileURLToPath(new URL('../../docs/guides/epay.md', import.meta.url))

let c: Cli
beforeAll(async () => {
  c = cli()
  await startPausedSandbox(c)
})
afterAll(async () => {
  await c.cleanup()
})

/** A V1 shop client's sign: non-empty parameters but sign and sign_type, sorted, k=v by &, the key appended, md5 hex. */
function v1Sign(params: Record<string, string>, key: string): string {
  const text = Object.keys(params).filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== '').sort().map((k) => `${k}=${params[k]}`).join('&')
  return createHash('md5').update(text + key, 'utf8').digest('hex')
}

async function form(url: string, params: Record<string, string>): Promise<Record<string, any>> {
  const response = await fetch(url, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: new URLSearchParams(params).toString()})
  return (await response.json()) as Record<string, any>
}

describe('the epay guide (docs/guides/epay.md)', () => {
  it('runs as written (the files it names stand for the reader\'s own)', async () => {
    const readme = readFileSync(GUIDE, 'utf8')
    const script = /# epay shops: the compatibility module\n\n```sh\n([\s\S]*?)```/.exec(readme)![1]
    const dir = join(c.dir, 'readme-epay')
    mkdirSync(dir, {recursive: true})
    // the reader's own parameters and key file, and a saved V2 answer
    copyFileSync(runtimeIn(c.env.XDG_DATA_HOME!).merchant.md5KeyFile!, join(dir, 'md5.key'))
    writeFileSync(join(dir, 'params.json'), JSON.stringify({pid: 'M1000000001', type: 'alipay', out_trade_no: 'SHOP2001', name: 'Tea', money: '1.00'}))
    const saved = await c.json(['epay', 'v2', 'create', '--method', 'wxpay', '--name', 'Saved', '--money', '1.00', '--json'])
    writeFileSync(join(dir, 'answer.json'), JSON.stringify(saved.body.response))

    const run = await runScript(['/bin/sh', '-e'], script, {cwd: dir, env: c.env})
    expect(run.stderr).not.toMatch(/Error/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^bizRefundNo\tSHOP1001-R1$/m)
    expect(run.stdout).toMatch(/^refundmoney\t2\.50$/m)
    expect(run.stdout).toMatch(/\/epay\/pay\/DP\d+$/m)
    expect(run.stdout).toMatch(/^[0-9a-f]{32}$/m)
    expect(run.stdout).toMatch(/^verified\tyes/m)
    expect(run.stderr).toContain('V1 answers are not signed')
  })
})

describe('sandbox credentials, for a shop client', () => {
  it('names the epay pid, the base URLs, the MD5 key file (no trailing newline) and the private key as bare Base64; a client configured from them works', async () => {
    const {code, body} = await c.json(['sandbox', 'credentials'])
    expect(code).toBe(0)
    const creds = body.data
    expect(creds).toMatchObject({epayPid: 'M1000000001', epayV1BaseUrl: `${creds.baseUrl}/epay/api/v1/`, epayV2BaseUrl: `${creds.baseUrl}/epay/api/v2/`})
    const md5Key = readFileSync(creds.epayV1Md5KeyFile, 'utf8')
    expect(md5Key).toMatch(/^[0-9a-f]{32}$/)
    const base64 = readFileSync(creds.merchantPrivateKeyBase64File, 'utf8')
    expect(base64).toMatch(/^MII[A-Za-z0-9+/]+={0,2}$/)
    expect(base64).toBe(readFileSync(creds.merchantPrivateKeyFile, 'utf8').replace(/-----[^-]+-----|\s/g, ''))
    expect(statSync(creds.merchantPrivateKeyBase64File).mode & 0o777).toBe(0o600)

    const table = await c.run(['sandbox', 'credentials'])
    expect(table.stdout).toMatch(/^epayPid\tM1000000001$/m)
    expect(table.stdout).toContain(creds.merchantPrivateKeyBase64File)
    expect(table.stdout).not.toContain(base64.slice(0, 40))
    expect(table.stdout).not.toContain(md5Key)
    expect((await c.run(['sandbox', 'credentials', '--format', 'env'])).stdout).toContain('UNIPAY_SANDBOX_EPAY_PID=M1000000001\n')

    // a V1 client reading the key file whole, a V2 client given the bare Base64 (it adds the PEM lines itself)
    const v1 = {pid: creds.epayPid, type: 'alipay', out_trade_no: `K${randomBytes(5).toString('hex')}`, name: 'Tea', money: '1.00'}
    expect(await form(`${creds.epayV1BaseUrl}mapi.php`, {...v1, sign: v1Sign(v1, md5Key), sign_type: 'MD5'})).toMatchObject({code: 1, type: 'alipay'})
    const pem = `-----BEGIN PRIVATE KEY-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`
    const v2 = {pid: creds.epayPid, type: 'wxpay', method: 'web', out_trade_no: `K${randomBytes(5).toString('hex')}`, name: 'Tea', money: '1.00', timestamp: String(Math.floor(Date.now() / 1000))}
    const created = await form(`${creds.epayV2BaseUrl}api/pay/create`, {...v2, sign: epayV2Sign(v2, pem), sign_type: 'RSA'})
    expect(created).toMatchObject({code: 0, type: 'wxpay'})
  })

  it('sandbox logs says when a V1 sign was made with a newline after the MD5 key', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    const key = `${readFileSync(creds.epayV1Md5KeyFile, 'utf8')}\n`
    const params = {pid: creds.mchNo, type: 'walletA', out_trade_no: `NL${randomBytes(5).toString('hex')}`, name: 'Tea', money: '1.00'}
    expect(await form(`${creds.epayV1BaseUrl}mapi.php`, {...params, sign: v1Sign(params, key), sign_type: 'MD5'})).toMatchObject({code: -1})
    const logs = await c.json(['sandbox', 'logs', '--failed'])
    const entry = logs.body.data.find((e: {path: string; message?: string}) => e.path === '/epay/api/v1/mapi.php' && e.message?.includes(params.out_trade_no))
    expect(entry).toMatchObject({code: '-1', merchant: creds.mchNo, message: expect.stringContaining('the MD5 key was signed with a newline after it')})
    expect((await c.run(['sandbox', 'logs', '--failed'])).stdout).toContain('the MD5 key was signed with a newline after it')
  })
})

describe('the epay commands', () => {
  it('epay v1: code 1 is success, -1 a failure with its message (exit 1)', async () => {
    const created = await c.json(['epay', 'v1', 'create', '--type', 'walletB', '--name', 'V1', '--money', '0.50'])
    expect(created.code).toBe(0)
    expect(created.body.response).toMatchObject({code: 1, type: 'walletB'})
    const queried = await c.json(['epay', 'v1', 'query', '--out-trade-no', created.body.outTradeNo])
    expect(queried.code).toBe(0)
    expect(queried.body.response).toMatchObject({code: 1, status: 0})
    const again = await c.run(['epay', 'v1', 'create', '--type', 'walletB', '--name', 'V1', '--money', '0.60', '--out-trade-no', created.body.outTradeNo])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`platform error -1: out_trade_no ${created.body.outTradeNo} was already used with different parameters`)
  })

  it('epay v2 create --json keeps orderId (signed beside trade_no)', async () => {
    const created = await c.json(['epay', 'v2', 'create', '--method', 'walletB', '--name', 'T', '--money', '1.00'])
    expect(created.body.data).toMatchObject({orderId: created.body.response.data.orderId, orderNo: created.body.response.trade_no})
  })

  it('epay v2 query\'s table shows refundmoney once refunded, and every amount in yuan as the module speaks it', async () => {
    const {outTradeNo} = (await c.json(['epay', 'v2', 'create', '--method', 'walletB', '--name', 'T', '--money', '10.00'])).body
    const unpaid = await c.run(['epay', 'v2', 'query', '--out-trade-no', outTradeNo])
    expect(unpaid.stdout).not.toContain('refundmoney')
    expect((await c.run(['sandbox', 'pay', outTradeNo])).code).toBe(0)
    const refund = await c.json(['epay', 'v2', 'refund', '--out-trade-no', outTradeNo, '--money', '3.00'])
    expect(refund.code).toBe(0)
    const refunded = await c.run(['epay', 'v2', 'query', '--out-trade-no', outTradeNo])
    expect(refunded.code).toBe(0)
    expect(refunded.stdout).toMatch(/^amount \(yuan\)\t10\.00$/m)
    expect(refunded.stdout).toMatch(/^refundmoney\t3\.00$/m)
    expect(refunded.stdout).not.toMatch(/\t1000$/m)
    const refundQuery = await c.run(['epay', 'v2', 'refund-query', '--out-refund-no', refund.body.outRefundNo])
    expect(refundQuery.stdout).toMatch(/^amount \(yuan\)\t3\.00$/m)
    // V1's query answers data unsigned, its cents beside each other: all in yuan
    const v1 = await c.run(['epay', 'v1', 'query', '--out-trade-no', outTradeNo])
    expect(v1.stdout).toMatch(/^amount \(yuan\)\t10\.00$/m)
    expect(v1.stdout).toMatch(/^realAmount \(yuan\)\t10\.00$/m)
    expect(v1.stdout).toMatch(/^refundableBalance \(yuan\)\t7\.00$/m)
    // --json keeps the answer's data as the platform sent it (cents)
    expect((await c.json(['epay', 'v2', 'query', '--out-trade-no', outTradeNo])).body.data.amount).toBe(1000)
  })

  it('--method and --type take the protocol\'s wallet words, --device its six values', async () => {
    const dry = await c.json(['epay', 'v2', 'create', '--method', 'aggregate', '--device', 'wechat', '--name', 'W', '--money', '1', '--dry-run'])
    expect(dry.body.request.params).toMatchObject({type: 'web', method: 'aggregate', device: 'wechat'})
    const v1 = await c.json(['epay', 'v1', 'create', '--type', 'wxpay', '--device', 'qq', '--name', 'W', '--money', '1'])
    expect(v1.body.response).toMatchObject({code: 1, type: 'wxpay', pay_type: 'jump'})
    const refused = await c.run(['epay', 'v1', 'create', '--type', 'qqpay', '--name', 'W', '--money', '1'])
    expect(refused.code).toBe(2)
  })
})

describe('after sandbox clock advance 2h', () => {
  let moved: Cli
  beforeAll(async () => {
    moved = cli()
    await startPausedSandbox(moved)
    expect((await moved.run(['sandbox', 'clock', 'advance', '2h'])).code).toBe(0)
  })
  afterAll(async () => {
    await moved.cleanup()
  })

  it('epay v2 answers still verify, and sandbox trigger epay.v2 delivers a notification a V2 client accepts', async () => {
    const created = await moved.json(['epay', 'v2', 'create', '--method', 'walletB', '--name', 'Later', '--money', '1.00'])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain('✓ answer signature verified')
    expect((await moved.run(['epay', 'v2', 'query', '--out-trade-no', created.body.outTradeNo])).code).toBe(0)

    const arrivals: Record<string, string>[] = []
    const server = createServer((req, res) => {
      arrivals.push(Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams))
      res.writeHead(200).end('success')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`
      const triggered = await moved.run(['sandbox', 'trigger', 'epay.v2', '--notify-url', url])
      expect(triggered.code).toBe(0)
      const [arrival] = await waitFor(() => arrivals.length > 0 && arrivals)
      expect(epayV2Verify(arrival, runtimeIn(moved.env.XDG_DATA_HOME!).platformPublicKeyPem)).toBe(true)
      expect(Math.abs(Number(arrival.timestamp) - Date.now() / 1000)).toBeLessThanOrEqual(300)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
