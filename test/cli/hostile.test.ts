// Bytes someone else chose reaching the CLI (protocol-notes section 1): answers from a fake
// platform, callbacks to `listen`, bodies given to `sign`. Every signature here is made by an
// independent signer (jsrsasign over its own flattening, test/helpers/sdk.ts), so an answer that
// is refused is refused for what it holds, not for a bad signature.
import {randomBytes} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer, request as httpRequest, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {formatGmt8} from '../../src/protocol/time.js'
import {cli, type Cli} from '../helpers/cli.js'
import {startListen, type RunningListen} from '../helpers/listen.js'
import {waitFor} from '../helpers/sandbox.js'
import {oracleSign, sdkString} from '../helpers/sdk.js'

const vectors = JSON.parse(readFileSync(new URL('../fixtures/unipay-sign.json', import.meta.url), 'utf8'))
const platformPem: string = vectors.keys.platform.privateKeyPkcs8Pem

/** The platform's answer to a request, as text; set by each test. */
let respond: (request: Record<string, any>, path: string) => string
let server: Server
let c: Cli
/** For the few runs an old build could hang: a subprocess, so a hang is the test's timeout. */
let cp: Cli

/** A signed SignedResult over exactly these fields (whatever their shape). */
const signed = (fields: Record<string, unknown>) => JSON.stringify({...fields, sign: oracleSign(sdkString(fields), platformPem)})
const envelope = (request: Record<string, any>, rest: Record<string, unknown>) => ({code: 0, msg: 'success', resTime: formatGmt8(new Date()), reqId: request.reqId, ...rest})

async function profileIn(on: Cli, url: string): Promise<void> {
  const merchantFile = join(on.dir, 'merchant.pem')
  const platformFile = join(on.dir, 'platform.pem')
  writeFileSync(merchantFile, vectors.keys.merchant.privateKeyPkcs8Pem, {mode: 0o600})
  writeFileSync(platformFile, vectors.keys.platform.publicKeySpkiPem)
  const added = await on.run(['profile', 'add', 'fake', '--base-url', url, '--mch-no', 'M1', '--private-key-file', merchantFile, '--platform-public-key-file', platformFile, '--channel-mch-no', 'CM1'])
  expect(added.code, added.stderr).toBe(0)
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => {
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(respond(request, req.url ?? ''))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  c = cli({sandbox: 'in-process'})
  cp = cli({process: true, sandbox: 'in-process'})
  await profileIn(c, url)
  await profileIn(cp, url)
})

afterAll(async () => {
  server.closeAllConnections()
  server.close()
  await c.cleanup()
  await cp.cleanup()
})

describe('a number built to cost, in an answer', () => {
  it('query pay refuses an answer holding 1e-10000000 with exit 3 at once', async () => {
    // the raw text as a hostile server writes it: 300 bytes, ten million characters written out
    respond = (request) =>
      `{"code":0,"msg":"success","data":{"orderNo":"P1","bizOrderNo":"B1","status":"success","amount":1e-10000000},"resTime":"${formatGmt8(new Date())}","reqId":"${request.reqId}","sign":"AAAA"}`
    const result = await cp.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('the number 1e-10000000 written out would be over 100 characters')
  })
})

/**
 * 24 KB whose string to sign is 40 million characters: flattening repeats the 4,000-character key
 * for each of the 10,000 values under it (at 20,000 by 25,000, 70 KB ran the reader out of memory).
 */
const costlyFlattening = `"${'k'.repeat(4000)}":[${Array.from({length: 10_000}, () => '1').join(',')}]`

describe('a body whose string to sign is built to cost, in an answer', () => {
  it('query pay refuses it with exit 3 before flattening it', async () => {
    respond = (request) => `{"code":0,"msg":"success","data":{"orderNo":"P1","bizOrderNo":"B1","status":"success"},"resTime":"${formatGmt8(new Date())}","reqId":"${request.reqId}",${costlyFlattening},"sign":"AAAA"}`
    const result = await cp.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('is refused: its string to sign would be over 33554432 characters')
  })
})

describe('an answer whose message holds line separators and bidi marks', () => {
  it('prints them escaped: a U+2028 would start a line of its own, U+200F reorder what follows', async () => {
    // unsigned: a platform error may be, and it is printed all the same
    respond = () => JSON.stringify({code: 40001, msg: 'refused\u2028Order paid, no action needed\u2029 \u200f\u061cdone\u200e'})
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toContain('refused\\u2028Order paid, no action needed\\u2029 \\u200f\\u061cdone\\u200e')
    expect(result.stderr).not.toMatch(/[\u2028\u2029\u200e\u200f\u061c]/)
  })
})

describe('a 20052 answer whose string to sign is clipped at 8 KiB', () => {
  it('compares ours over what the server echoed, saying both lengths, instead of reading the clip mark as a value', async () => {
    // the platform echoes at most 8 KiB of its string to sign, with the full length (protocol-notes section 2)
    let whole = ''
    respond = (request) => {
      const {sign: _sign, ...fields} = request
      whole = `${sdkString(fields)}&zz=${'x'.repeat(20_000)}`.replace('mchNo=M1', 'mchNo=M2')
      return JSON.stringify({code: 20052, msg: `signature verification failed; server string to sign: ${whole.slice(0, 8192)}... (${whole.length} characters in all)`, data: null})
    }
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toMatch(new RegExp(`the strings to sign differ \\(the server's string is ${whole.length} characters, ours \\d+: compared over the first 8192 it echoed\\):\\n  mchNo: ours "M1", server "M2"\\n  server has zz=x{8000,8192}, we do not\\n`))
  })
})

describe('data flattened, missing or null', () => {
  it('refuses a signed answer whose data was moved into "data.status" keys (exit 3)', async () => {
    // flattens exactly like {"data": {"orderNo": ..., "status": ...}}: the signature holds
    respond = (request) => signed(envelope(request, {'data.orderNo': 'P1', 'data.bizOrderNo': 'B1', 'data.status': 'success'}))
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('data.orderNo: the key "data.orderNo" holds ".", "[" or "]"')
  })

  it('refuses a nested key with a bracket and a string with a lone surrogate (exit 3)', async () => {
    respond = (request) => signed(envelope(request, {data: {orderNo: 'P1', bizOrderNo: 'B1', status: 'success', 'x[0]': '1'}}))
    expect((await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])).code).toBe(3)
    respond = (request) => signed(envelope(request, {data: {orderNo: 'P1', bizOrderNo: 'B1', status: 'success', title: 'T\uFFFD'}})).replace('T\uFFFD', 'T\\ud800')
    const lone = await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(lone.code, lone.stderr).toBe(3)
    expect(lone.stderr).toContain('data.title: holds an unpaired UTF-16 surrogate')
  })

  it.each([
    ['null', {data: null}],
    ['missing', {}],
  ])('refuses a signed success whose data is %s (exit 3)', async (word, rest) => {
    respond = (request) => signed(envelope(request, rest))
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain(`the answer says success but its data is ${word}`)
  })

  it('takes close, the one endpoint whose data is null', async () => {
    respond = (request) => signed(envelope(request, {data: null}))
    const result = await c.run(['pay', 'close', '--profile', 'fake', '--order-no', 'P1'])
    expect(result.code, result.stderr).toBe(0)
  })

  it('transfer --json does not say ok for a flattened answer', async () => {
    respond = (request) => signed(envelope(request, {'data.transferNo': 'TR1', 'data.bizTransferNo': request.bizTransferNo, 'data.status': 'success'}))
    const result = await c.json(['transfer', '--profile', 'fake', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', 'u1', '--amount', '100'])
    expect(result.code).toBe(3)
    expect(result.body.ok).toBe(false)
  })

  it('transfer batch records a row answered with flattened data as unknown, not processing', async () => {
    // the create and every look-up alike
    respond = (request) => signed(envelope(request, {'data.transferNo': 'TR1', 'data.bizTransferNo': request.bizTransferNo ?? 'X', 'data.status': 'fail'}))
    const file = join(c.dir, `rows-${randomBytes(4).toString('hex')}.csv`)
    writeFileSync(file, 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,u1,100\n')
    const result = await c.json(['transfer', 'batch', file, '--profile', 'fake', '--yes'])
    expect(result.code, result.stderr).toBe(5)
    expect(result.body.data).toMatchObject({counts: {success: 0, processing: 0, unknown: 1}})
  })
})

describe('an answer for another amount', () => {
  it('refund create refuses a signed answer naming another amount (exit 3)', async () => {
    respond = (request) => signed(envelope(request, {data: {refundNo: 'RF1', bizRefundNo: request.bizRefundNo, status: 'progress', amount: 10000}}))
    const result = await c.run(['refund', 'create', '--profile', 'fake', '--trade-no', 'T1', '--amount', '1', '--yes'])
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('the answer is about an amount of 10000 cents, not the 1 we asked for')
  })
})

describe('sign', () => {
  it('refuses a body holding 1e-10000000 with a clear message (exit 2), at once', async () => {
    const key = join(cp.dir, 'merchant.pem')
    const result = await cp.run(['sign', '--private-key', key, '--data', '{"mchNo":"M1","amount":1e-10000000}'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('the number 1e-10000000 written out would be over 100 characters')
  })
})

describe('verify', () => {
  it('says not verified for a signed answer with flattened keys, and verified for a flat system callback', async () => {
    const publicKey = join(c.dir, 'platform.pem')
    const flattened = signed({code: 0, msg: 'success', 'data.status': 'success', resTime: '2026-01-01 00:00:00', reqId: 'R1'})
    const refused = await c.run(['verify', '--public-key', publicKey, '--data', flattened])
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain('refused before any signature check: data.status: the key "data.status" holds')
    const flat = signed({code: 0, msg: 'success', data: {'details[0].amount': '1', orderNo: 'P1'}, event: 'alloc.success', protocol: 'system', reqId: 'R1', resTime: '2026-01-01 00:00:00'})
    const accepted = await c.run(['verify', '--callback', '--public-key', publicKey, '--data', flat])
    expect(accepted.code, accepted.stderr).toBe(0)
  })
})

describe('listen', () => {
  const running: RunningListen[] = []
  afterEach(async () => {
    while (running.length) await running.pop()!.stop('SIGKILL')
  })
  const listen = async (args: string[]) => {
    const started = await startListen(cp, ['--profile', 'fake', ...args])
    running.push(started)
    return started
  }
  /** A system callback as the platform sends it: flat string data, signed by the outside signer. */
  const callback = (orderNo: string) =>
    signed({code: 0, msg: 'success', data: {orderNo, status: 'success', amount: '100'}, resTime: formatGmt8(new Date()), reqId: 'R1', event: 'pay.success', eventId: `E${orderNo}`, protocol: 'system', mchNo: 'M1', appId: 'A1'})
  const post = (url: string, body: string) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body})
  /** A POST to a path exactly as written: fetch would resolve its dot segments before sending. */
  const rawPost = (url: string, path: string, body: string) =>
    new Promise<{status: number; text: string}>((resolve, reject) => {
      const {hostname, port} = new URL(url)
      const req = httpRequest({host: hostname, port, path, method: 'POST', headers: {'content-type': 'application/json'}}, (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
      })
      req.on('error', reject)
      req.end(body)
    })

  it('answers a callback holding 1e-10000000 with 400 at once and goes on serving', async () => {
    const l = await listen(['--port', '0'])
    const hostile = await post(l.url, '{"code":0,"data":{"orderNo":"P1","amount":1e-10000000},"event":"pay.success","protocol":"system","sign":"AAAA"}')
    expect(hostile.status).toBe(400)
    expect(await hostile.text()).toContain('the number 1e-10000000 written out would be over 100 characters')
    const genuine = await post(l.url, callback('P2'))
    expect(genuine.status).toBe(200)
    expect(await genuine.text()).toBe('SUCCESS')
  })

  it('answers a callback whose string to sign would be 40 million characters with 400, and goes on serving', async () => {
    const l = await listen(['--port', '0'])
    const hostile = await post(l.url, `{"code":0,"data":{"orderNo":"P1"},"event":"pay.success","protocol":"system",${costlyFlattening},"sign":"AAAA"}`)
    expect(hostile.status).toBe(400)
    expect(await hostile.text()).toContain('its string to sign would be over 33554432 characters')
    const genuine = await post(l.url, callback('P3'))
    expect(genuine.status).toBe(200)
  })

  it('does not take a callback whose flat data is nested, nor one with a dotted key outside data', async () => {
    const l = await listen(['--port', '0'])
    const dotted = signed({code: 0, msg: 'success', 'data.orderNo': 'P1', resTime: formatGmt8(new Date()), reqId: 'R1', event: 'pay.success', protocol: 'system'})
    const answer = await post(l.url, dotted)
    expect(answer.status).toBe(400)
    expect(await answer.text()).toContain('the key "data.orderNo" holds')
    const nested = signed({code: 0, msg: 'success', data: {details: {amount: '1'}}, resTime: formatGmt8(new Date()), reqId: 'R1', event: 'pay.success', protocol: 'system'})
    const refused = await post(l.url, nested)
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain("data.details: a system callback's data is flat")
  })

  it('refuses --forward-to its own address (no loop)', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()))
    const port = (probe.address() as AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    // by address, and by a name that resolves here: the machine's own name
    for (const forwardTo of [`http://localhost:${port}/notify`, `http://${hostname()}:${port}/notify`]) {
      const result = await cp.run(['listen', '--profile', 'fake', '--port', String(port), '--forward-to', forwardTo])
      expect(result.code, forwardTo).toBe(2)
      expect(result.stderr).toContain('is this listener itself')
    }
  })

  it('never relays a callback whose path climbs out of the forward base path', async () => {
    const arrived: string[] = []
    const app = createServer((req, res) => {
      arrived.push(req.url ?? '')
      req.resume()
      res.end('SUCCESS')
    })
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', () => resolve()))
    try {
      const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
      const l = await listen(['--port', '0', '--forward-to', `${appUrl}/shop/pay/notify`])
      for (const climb of ['/notify/../../admin', '/notify/%2e%2e/%2E%2E/admin', '/notify/..\\..\\admin', '/notify/.%2e/admin']) {
        const answer = await rawPost(l.url, climb, callback('P3'))
        expect(answer.status, climb).toBe(400)
        expect(answer.text).toContain('leaves the --forward-to path')
      }
      const kept = await post(`${l.url}/store7`, callback('P4'))
      expect(kept.status).toBe(200)
      await waitFor(() => arrived.length > 0)
      expect(arrived).toEqual(['/shop/pay/notify/store7'])
    } finally {
      app.close()
    }
  })
})

describe('the sandbox daemon under a hostile body', () => {
  let d: Cli
  beforeAll(() => {
    d = cli()
  })
  afterAll(async () => {
    await d.cleanup()
  })
  /**
   * How many connections to a stopped server on loopback `port` their client gave up on: the
   * kernel queued them, the server never accepted them (no socket inode) and the client closed
   * its end (CLOSE_WAIT). Read from Linux's /proc/net/tcp; elsewhere the daemon is resumed at
   * once, and the case of a silent daemon is left to Linux runs.
   */
  const probesGivenUp = (port: number): number => {
    let table: string
    try {
      table = readFileSync('/proc/net/tcp', 'utf8')
    } catch {
      return Number.POSITIVE_INFINITY
    }
    const CLOSE_WAIT = '08'
    return table.split('\n').slice(1).map((line) => line.trim().split(/\s+/))
      .filter(([, local, , state, , , , , , inode]) => local !== undefined && parseInt(local.split(':')[1], 16) === port && state === CLOSE_WAIT && inode === '0')
      .length
  }
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
    } catch {
      return false
    }
    // an exited daemon may linger as a zombie where nothing reaps orphans (some containers)
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    } catch {
      return true
    }
  }

  it('answers 1e-10000000 at once, is not doubled while silent, and stops cleanly on SIGTERM', async () => {
    const started = await d.result<{pid: number; url: string}>(['sandbox', 'start', '--json'])
    const text = `{"mchNo":"M1000000001","reqId":"R1","reqTime":"${formatGmt8(new Date())}","nonceStr":"n1","bizOrderNo":"B1","title":"T","amount":1e-10000000,"method":"walletA_qr","sign":"AAAA"}`
    const answer = (await (await fetch(`${started.url}/unipay/pay`, {method: 'POST', headers: {'content-type': 'application/json'}, body: text})).json()) as {code: number}
    expect(answer.code).toBe(10505)
    // a daemon that cannot answer (stopped here; busy for hours before): `sandbox start` waits for
    // it instead of starting a second one on the same journal
    process.kill(started.pid, 'SIGSTOP')
    const port = Number(new URL(started.url).port)
    let again: Promise<{pid: number; started: boolean}> | undefined
    try {
      again = d.result<{pid: number; started: boolean}>(['sandbox', 'start', '--json'])
      // resumed once two of the start probes gave up on it (2 s each), which an old build took as "not running"
      await waitFor(() => probesGivenUp(port) >= 2)
    } finally {
      process.kill(started.pid, 'SIGCONT')
    }
    expect(await again).toMatchObject({pid: started.pid, started: false})
    process.kill(started.pid, 'SIGTERM')
    await waitFor(() => !alive(started.pid))
    expect(readFileSync(join(d.env.XDG_DATA_HOME!, 'unipay', 'sandbox', 'sandbox.log'), 'utf8')).toContain('sandbox stopped')
  })
})
