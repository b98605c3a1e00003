// The integrator's own backend against the sandbox: credentials, a port that stays, the
// foreground mode, and the request log that explains a refused signature.
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkEasyPayCallback, parseEasyPayInput} from '../../src/protocol/callback.js'
import {canonicalString} from '../../src/protocol/canonical.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {signString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {cli, type Cli} from '../helpers/cli.js'
import {startListen} from '../helpers/listen.js'
import {waitFor} from '../helpers/sandbox.js'

let c: Cli
beforeAll(() => {
  c = cli()
})
afterAll(async () => {
  await c.cleanup()
})

describe('sandbox credentials', () => {
  it('names what a third-party client needs, files by path, never a secret', async () => {
    const {code, body} = await c.json(['sandbox', 'credentials'])
    expect(code).toBe(0)
    const creds = body.data
    expect(creds).toMatchObject({mchNo: 'M1000000001', appId: 'A1000000001'})
    expect(creds.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(creds.epayV1BaseUrl).toBe(`${creds.baseUrl}/epay/api/v1/`)
    expect(creds.epayV2BaseUrl).toBe(`${creds.baseUrl}/epay/api/v2/`)
    expect(creds.platformPublicKeyPem).toContain('BEGIN PUBLIC KEY')
    expect(creds.platformPublicKeyPem.replace(/-----[^-]+-----|\s/g, '')).toBe(creds.platformPublicKey)
    expect(existsSync(creds.merchantPrivateKeyFile)).toBe(true)
    expect(existsSync(creds.epayV1Md5KeyFile)).toBe(true)
    const md5Key = readFileSync(creds.epayV1Md5KeyFile, 'utf8').trim()
    for (const format of ['table', 'env', 'properties']) {
      const {stdout, code: exit} = await c.run(['sandbox', 'credentials', '--format', format])
      expect(exit).toBe(0)
      expect(stdout).not.toContain('PRIVATE KEY')
      expect(stdout).not.toContain(md5Key)
    }
    const env = (await c.run(['sandbox', 'credentials', '--format', 'env'])).stdout
    expect(env).toContain(`UNIPAY_SANDBOX_BASE_URL=${creds.baseUrl}\n`)
    expect(env).toContain(`UNIPAY_SANDBOX_PLATFORM_PUBLIC_KEY=${creds.platformPublicKey}\n`)
    expect((await c.run(['sandbox', 'credentials', '--format', 'properties'])).stdout).toContain('unipay.sandbox.mchNo=M1000000001')
  })
})

describe('a sandbox that stays where it is', () => {
  it('keeps its port across a restart', async () => {
    const first = (await c.json(['sandbox', 'start'])).body.data.url
    expect((await c.run(['sandbox', 'stop'])).code).toBe(0)
    const again = await c.json(['sandbox', 'start'])
    expect(again.body.data).toMatchObject({url: first, started: true})
  })
})

describe('sandbox logs', () => {
  it('shows a third-party request refused for its signature, with the string to sign and the cause', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    // a client that writes a null as `key=` in its string to sign
    const bizOrderNo = `L${randomBytes(6).toString('hex')}`
    const body: Record<string, unknown> = {
      mchNo: creds.mchNo, appId: creds.appId, reqId: randomBytes(8).toString('hex'), nonceStr: randomBytes(8).toString('hex'),
      reqTime: formatGmt8(new Date()), bizOrderNo, title: 'Logged', amount: 100, attach: null,
    }
    const clientString = `${canonicalString(body)}&attach=`.split('&').sort().join('&')
    body.sign = signString(clientString, loadPrivateKey(readFileSync(creds.merchantPrivateKeyFile, 'utf8')))
    const answer: any = await (await fetch(`${creds.baseUrl}/unipay/pay`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})).json()
    expect(answer.code).toBe(20052)

    const {code, body: logs} = await c.json(['sandbox', 'logs', '--failed'])
    expect(code).toBe(0)
    const entry = logs.data.find((e: any) => e.path === '/unipay/pay' && e.code === '20052')
    expect(entry).toMatchObject({method: 'POST', merchant: creds.mchNo, status: 200})
    expect(entry.signature.stringToSign).toContain(`bizOrderNo=${bizOrderNo}`)
    expect(entry.signature.stringToSign).not.toContain('attach')
    expect(entry.signature.causes[0]).toMatch(/null .*`key=`/)
    const human = (await c.run(['sandbox', 'logs', '--failed'])).stdout
    expect(human).toContain('POST /unipay/pay  M1000000001  200  20052')
    expect(human).toMatch(/likeliest cause: null/)
  })

  it('lists the CLI\'s own calls too (control calls carry the secret and still work)', async () => {
    expect((await c.json(['sandbox', 'balance', '--set-yuan', '12'])).body.data.balance).toBe(1200)
    const {body} = await c.json(['sandbox', 'logs'])
    expect(body.data.some((e: any) => e.path === '/_sandbox/balance' && e.status === 200)).toBe(true)
  })
})

describe('sandbox start --foreground', () => {
  it('logs requests to stdout, prints the secret once beyond loopback, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'unipay-fg-'))
    const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
    const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--foreground', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir], {env: c.env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      const port = (await waitFor(() => /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(out) ?? undefined, 20_000))[1]
      const secret = (await waitFor(() => /control secret \(header x-unipay-sandbox-secret\): (\S+)/.exec(out) ?? undefined))[1]
      const runtime = JSON.parse(readFileSync(join(dataDir, 'sandbox', 'runtime.json'), 'utf8'))
      expect(secret).toBe(runtime.controlSecret)
      expect((await fetch(`http://127.0.0.1:${port}/_sandbox/notifications`)).status).toBe(403)
      await fetch(`http://127.0.0.1:${port}/unipay/ping`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"mchNo":"M1000000001"}'})
      await waitFor(() => out.includes('POST /unipay/ping  M1000000001  200  10506'))
      expect(out.match(/control secret/g)).toHaveLength(1)
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(out).toContain('sandbox stopped')
      expect(existsSync(join(dataDir, 'sandbox', 'runtime.json'))).toBe(false)
    } finally {
      child.kill('SIGKILL')
      rmSync(dataDir, {recursive: true, force: true})
    }
  }, 40_000)
})

describe('sandbox trigger and listen --events', () => {
  it('drives a refund to refund.fail; listen shows and acknowledges only the events asked for', async () => {
    const listen = await startListen(c, ['--port', '0', '--events', 'refund.*', '--json'])
    try {
      const {code, body} = await c.json(['sandbox', 'trigger', 'refund.fail', '--notify-url', listen.url])
      expect(code).toBe(0)
      expect(body.data.refundNo).toBeTruthy()
      const shown = await waitFor(() => listen.lines.map((l) => JSON.parse(l)).find((a) => a.event === 'refund.fail'))
      expect(shown.verified).toBe(true)
      // the order's pay.success went to the same address: acknowledged, not shown
      const callbacks = (await c.json(['sandbox', 'callbacks', 'list'])).body.data as any[]
      const paySuccess = callbacks.find((n) => n.event === 'pay.success' && n.url === listen.url)
      await waitFor(async () => ((await c.json(['sandbox', 'callbacks', 'list'])).body.data as any[]).find((n) => n.id === paySuccess.id && n.state === 'delivered'))
      expect(listen.lines.map((l) => JSON.parse(l)).every((a) => a.event !== 'pay.success')).toBe(true)
    } finally {
      await listen.stop('SIGINT')
    }
  }, 60_000)

  it('sends the epay V1 (MD5) and V2 (RSA) paid notifications, each verifying with its key', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    const keys = {md5Key: readFileSync(creds.epayV1Md5KeyFile, 'utf8').trim(), platformKey: loadPublicKey(creds.platformPublicKeyPem)}
    for (const [event, signType] of [['epay.v1', 'MD5'], ['epay.v2', 'RSA']]) {
      const notifyUrl = `http://127.0.0.1:9/${event}`
      const {code, body} = await c.json(['sandbox', 'trigger', event, '--notify-url', notifyUrl])
      expect(code).toBe(0)
      const callbacks = (await c.json(['sandbox', 'callbacks', 'list'])).body.data as any[]
      const sent = callbacks.find((n) => n.url.includes(`trade_no=${body.data.tradeNo}&`))
      const params = parseEasyPayInput(sent.url)
      expect(params).toMatchObject({trade_status: 'TRADE_SUCCESS', sign_type: signType, out_trade_no: body.data.outTradeNo})
      expect(checkEasyPayCallback(params, keys).verified).toBe(true)
    }
  })

  it('refuses an unknown event with the list of events (exit 2)', async () => {
    const {code, stderr} = await c.run(['sandbox', 'trigger', 'pay.maybe', '--notify-url', 'http://127.0.0.1:9/notify'])
    expect(code).toBe(2)
    expect(stderr).toContain('pay.success, pay.fail')
  })
})

