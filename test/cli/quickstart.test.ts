import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {PaySyncResult} from '../../src/commands/pay/sync.js'
import type {QueryPayResult} from '../../src/commands/query/pay.js'
import type {SandboxStatusResult} from '../../src/commands/sandbox/status.js'
import type {NormalPayOrderResult} from '../../src/protocol/answers.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {loadPublicKey} from '../../src/protocol/keys.js'
import {cli, type Cli} from '../helpers/cli.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'

let c: Cli
let receiver: Receiver
beforeAll(async () => {
  c = cli()
  receiver = await callbackReceiver()
})
afterAll(async () => {
  await receiver.close()
  await c.cleanup()
})

/** The status of the local sandbox, which must be running. */
async function running() {
  const status = await c.result<SandboxStatusResult>(['sandbox', 'status'])
  if (!status.running) throw new Error('the local sandbox is not running')
  return status
}

describe('the quick start against the local sandbox', () => {
  it('creates a payment with no configuration: a verified order table and the QR content', async () => {
    const result = await c.run(['pay', 'create', '--title', 'Coffee', '--amount', '100'])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/starting the local sandbox in the background \(pid \d+/)
    expect(result.stderr).toContain('✓ answer signature verified with the platform public key')
    expect(result.stdout).toMatch(/^orderNo\tDP\d+$/m)
    expect(result.stdout).toMatch(/^status\tprogress$/m)
    expect(result.stdout).toMatch(/^payBodyType\tqr_code$/m)
    expect(result.stdout).toMatch(/^payBody\thttp:\/\/127\.0\.0\.1:\d+\/aggregate\/DP\d+$/m)
  })

  it('walks an order from creation to paid, and the callback verifies', async () => {
    const created = await c.json(['pay', 'create', '--title', '咖啡', '--yuan', '12.50', '--notify-url', receiver.url])
    expect(created.code).toBe(0)
    expect(created.body.ok).toBe(true)
    expect(created.body.data).toMatchObject({status: 'progress', payBodyType: 'qr_code'})
    expect(created.body.response.sign).toBeTruthy()
    const {bizOrderNo, orderNo} = created.body.data

    expect(await c.result<QueryPayResult>(['query', 'pay', '--biz-order-no', bizOrderNo])).toMatchObject({orderNo, status: 'progress', amount: 1250, title: '咖啡'})

    const paid = await c.run(['sandbox', 'pay', orderNo])
    expect(paid.code).toBe(0)
    const after = await c.run(['query', 'pay', '--biz-order-no', bizOrderNo])
    expect(after.stdout).toMatch(/^status\tsuccess$/m)
    expect(after.stdout).toMatch(/^refundableBalance\t1250$/m)

    await waitFor(() => receiver.received.length > 0)
    const callback = receiver.received[0].body
    const status = await running()
    expect(status).toMatchObject({url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), pid: expect.any(Number)})
    const platformKey = loadPublicKey(status.platformPublicKey)
    expect(readEnvelope(callback, platformKey).verified).toBe(true)
    expect(JSON.parse(callback)).toMatchObject({event: 'pay.success', data: {orderNo, status: 'success', amount: '1250'}})

    // the same check through the CLI, as an integrator would run it on a saved callback
    const saved = join(c.dir, 'callback.json')
    writeFileSync(saved, callback)
    expect((await c.run(['verify', '--data', `@${saved}`])).code).toBe(0)
    writeFileSync(saved, callback.replace('"status":"success"', '"status":"fail"'))
    const tampered = await c.run(['verify', '--data', `@${saved}`])
    expect(tampered.code).toBe(3)
    expect(tampered.stderr).toMatch(/signature does not verify: no common variant verifies/)
  })

  it('closes and cancels, and says why a final order cannot be closed', async () => {
    const {bizOrderNo} = await c.result<PayCreateResult>(['pay', 'create', '--title', 'T', '--amount', '1', '--method', 'walletA_qr'])
    expect((await c.run(['pay', 'close', '--biz-order-no', bizOrderNo, '--cancel'])).code).toBe(0)
    const again = await c.run(['pay', 'close', '--biz-order-no', bizOrderNo])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/platform error 20044: order \S+ is cancel/)
    expect(await c.result<PaySyncResult>(['pay', 'sync', '--biz-order-no', bizOrderNo])).toEqual({orderStatus: 'cancel', adjust: false})
  })

  it('renders each payBody type; piped, as one labelled line', async () => {
    const link = await c.run(['pay', 'create', '--title', 'T', '--amount', '1', '--method', 'walletC_h5'])
    expect(link.stdout).toMatch(/^payBody\thttps:\/\/walletc\.sandbox\.invalid\/h5\/pay\?orderNo=DP\d+$/m)
    const jsapi = await c.run(['pay', 'create', '--title', 'T', '--amount', '1', '--method', 'walletA_jsapi', '--open-id', 'o123'])
    expect(jsapi.stdout).toMatch(/^payBody\t\{.*"package":"prepay_id=DP\d+"/m)
    // every line a script reads is labelled
    for (const line of jsapi.stdout.trim().split('\n')) expect(line).toMatch(/^\w+\t/)
    const formFile = join(c.dir, 'form.html')
    const form = await c.run(['pay', 'create', '--title', 'T', '--amount', '1', '--method', 'walletB_pc', '--form-file', formFile])
    expect(form.code).toBe(0)
    expect(form.stdout.trim().split('\n').at(-1)).toBe(`formFile\t${formFile}`)
    expect(readFileSync(formFile, 'utf8')).toMatch(/<form id="pay"[^>]*>.*<\/form><script>document\.forms\.pay\.submit\(\);<\/script>/s)
  })

  it('pings and shows the server string beside ours', async () => {
    const ping = await c.run(['ping'])
    expect(ping.code).toBe(0)
    expect(ping.stdout).toMatch(/^match\tyes$/m)
  })

  it('makes a raw signed call with api', async () => {
    const {bizOrderNo} = await c.result<PayCreateResult>(['pay', 'create', '--title', 'T', '--amount', '5'])
    // an open endpoint: the caller knows what it answers
    expect(await c.result<NormalPayOrderResult>(['api', '/unipay/query/pay-order', '-f', `bizOrderNo=${bizOrderNo}`])).toMatchObject({amount: 5, bizOrderNo})
  })

  it('prints the signed request for a dry run and sends nothing', async () => {
    const {request} = await c.dryRun<PayCreateResult>(['pay', 'create', '--title', 'Dry', '--amount', '7', '--biz-order-no', 'DRY-1'])
    expect(request.body).toMatchObject({bizOrderNo: 'DRY-1', amount: 7, sign: expect.any(String)})
    expect(request.canonicalString).toContain('bizOrderNo=DRY-1')
    const query = await c.run(['query', 'pay', '--biz-order-no', 'DRY-1'])
    expect(query.code).toBe(1)
    expect(query.stderr).toContain('platform error 20041')
  })

  it('keeps orders when the sandbox is killed, and restarts it on demand', async () => {
    const {bizOrderNo} = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Kill', '--amount', '3'])
    const {pid} = await running()
    process.kill(pid, 'SIGKILL')
    await waitFor(() => {
      try {
        process.kill(pid, 0)
        return false
      } catch {
        return true
      }
    })
    const query = await c.run(['query', 'pay', '--biz-order-no', bizOrderNo])
    expect(query.code).toBe(0)
    expect(query.stderr).toMatch(/starting the local sandbox/)
    expect((await running()).pid).not.toBe(pid)
  })

  it('stops the sandbox and reports it stopped', async () => {
    expect((await c.run(['sandbox', 'stop'])).code).toBe(0)
    expect(await c.result<SandboxStatusResult>(['sandbox', 'status'])).toMatchObject({running: false})
    expect(existsSync(join(c.dir, 'data', 'unipay', 'sandbox', 'runtime.json'))).toBe(false)
  })
})
