import {writeFileSync} from 'node:fs'
import {createServer, request as httpRequest, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
let counter: {server: Server; url: string; hits: number}
let proxy: {server: Server; url: string}
let sandboxUrl = ''
let merchantKeyFile = ''
let platformKeyFile = ''

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  c = cli()
  const status = await c.json(['sandbox', 'start'])
  sandboxUrl = status.body.data.url
  const runtime = (await c.json(['sandbox', 'status'])).body.data
  platformKeyFile = join(c.dir, 'platform.pem')
  writeFileSync(platformKeyFile, runtime.platformPublicKey)
  const pair = generateRsaKeyPair()
  merchantKeyFile = join(c.dir, 'merchant.pem')
  writeFileSync(merchantKeyFile, pair.privateKeyPem, {mode: 0o600})

  // Counts requests: bad input must never reach it.
  const counterServer = createServer((_req, res) => {
    counter.hits++
    res.end('{}')
  })
  counter = {server: counterServer, url: await listen(counterServer), hits: 0}

  // Forwards to the sandbox and alters the answer, as a tampering middlebox would.
  const proxyServer = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => {
      const upstream = httpRequest(`${sandboxUrl}${req.url}`, {method: req.method, headers: req.headers}, (answer) => {
        let text = ''
        answer.on('data', (d) => (text += d))
        answer.on('end', () => {
          const altered = text.replace('"status":"progress"', '"status":"success"')
          res.writeHead(answer.statusCode ?? 500, {'content-type': 'application/json', 'content-length': Buffer.byteLength(altered)})
          res.end(altered)
        })
      })
      upstream.end(Buffer.concat(chunks))
    })
  })
  proxy = {server: proxyServer, url: await listen(proxyServer)}
})

afterAll(async () => {
  counter.server.close()
  proxy.server.closeAllConnections()
  proxy.server.close()
  await c.cleanup()
})

describe('bad input: exit 2, naming the flag, before any network call', () => {
  beforeAll(async () => {
    const added = await c.run(['profile', 'add', 'counter', '--base-url', counter.url, '--mch-no', 'M1', '--private-key-file', merchantKeyFile])
    expect(added.code).toBe(0)
  })

  it.each([
    [['--title', 'x', '--amount', '0'], '--amount: must be at least 1'],
    [['--title', 'x', '--amount', '12.5'], '--amount: "12.5" is not a whole number of cents (use --yuan for yuan)'],
    [['--title', 'x', '--yuan', '1.234'], '--yuan: "1.234" is not an amount in yuan with at most 2 decimals'],
    [['--title', 'x', '--amount', '10000000000'], '--amount: must be at most 9999999999'],
    [['--title', 'x'.repeat(101), '--amount', '1'], '--title: must be at most 100 characters'],
    [['--title', 'x', '--amount', '1', '--notify-url', 'ftp://x'], '--notify-url: must be an http(s) URL'],
    [['--title', 'x', '--amount', '1', '--auth-code', '994512345678'], '--auth-code: must start with a known barcode prefix'],
    [['--title', 'x', '--amount', '1', '--expired-time', '2025-13-01 00:00:00'], '--expired-time: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'],
    [['--title', 'x', '--amount', '1', '--method', 'walletQ_qr'], 'Expected --method=walletQ_qr to be one of'],
    [['--amount', '1'], '--title: is required'],
  ])('pay create %j', async (args, message) => {
    const result = await c.run(['pay', 'create', '--profile', 'counter', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(counter.hits).toBe(0)
  })

  it('gives the JSON error envelope with --json', async () => {
    const result = await c.json(['pay', 'create', '--profile', 'counter', '--title', 'x', '--amount', '0'])
    expect(result.code).toBe(2)
    expect(result.body).toEqual({
      ok: false,
      error: {kind: 'usage', exitCode: 2, message: 'invalid input', problems: [{flag: '--amount', field: 'amount', message: 'must be at least 1'}]},
      warnings: [],
    })
    expect(counter.hits).toBe(0)
  })

  it('refuses a query without an order reference', async () => {
    const result = await c.run(['query', 'pay', '--profile', 'counter'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--order-no: one of orderNo / bizOrderNo is required')
    expect(counter.hits).toBe(0)
  })

  it('refuses a --data file that is not JSON', async () => {
    const file = join(c.dir, 'bad.json')
    writeFileSync(file, '{"goodsDetail": [')
    const result = await c.run(['pay', 'create', '--profile', 'counter', '--title', 'x', '--amount', '1', '--data', `@${file}`])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--data: not a JSON object/)
  })
})

describe('transport: exit 4', () => {
  it('says so clearly when a remote profile points at a stopped platform', async () => {
    const dead = createServer()
    const url = await listen(dead)
    await new Promise<void>((resolve) => dead.close(() => resolve()))
    await c.run(['profile', 'add', 'stopped', '--base-url', url, '--mch-no', 'M1', '--private-key-file', merchantKeyFile, '--platform-public-key-file', platformKeyFile])
    const result = await c.run(['pay', 'create', '--profile', 'stopped', '--title', 'x', '--amount', '1'])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain(`Error: could not reach ${url}: connect ECONNREFUSED`)
    const json = await c.json(['query', 'pay', '--profile', 'stopped', '--order-no', 'X'])
    expect(json.code).toBe(4)
    expect(json.body.error).toMatchObject({kind: 'transport', exitCode: 4})
  })

  it('reports an answer that is not a platform answer', async () => {
    const result = await c.run(['query', 'pay', '--profile', 'counter', '--order-no', 'X'])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain('has no code: not a platform answer')
  })
})

describe('signatures: exit 3', () => {
  it('refuses a tampered answer, naming the reason', async () => {
    const result = await c.run(['pay', 'create', '--title', 'x', '--amount', '100', '--base-url', proxy.url])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('signature does not verify with the platform public key')
    expect(result.stdout).toBe('')
  })

  it('--no-verify passes it through with a warning', async () => {
    const result = await c.run(['pay', 'create', '--title', 'x', '--amount', '100', '--base-url', proxy.url, '--no-verify'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('warning: --no-verify: answers are NOT verified')
  })

  it('explains a 20052: same string, so the key does not match the one registered', async () => {
    const result = await c.run(['pay', 'create', '--title', 'x', '--amount', '1', '--private-key', merchantKeyFile])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('platform error 20052')
    expect(result.stderr).toContain('the public key registered for this merchant does not match our private key')
  })
})
