// A 200-row ledger killed with SIGKILL mid-run, then --resume: every row reported exactly once,
// none compared by the killed run asked again (a row in flight at the kill, or a match it had not
// yet written, may be). In its own file, so the suite runs it beside the others.
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {call, type ClientConfig} from '../../src/client/pipeline.js'
import {endpoints} from '../../src/protocol/endpoints.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {cli, type Cli} from '../helpers/cli.js'
import {proxyTo, type Proxy} from '../helpers/proxy.js'
import {runtimeIn, waitFor} from '../helpers/sandbox.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
let c: Cli
let proxy: Proxy
let file = ''
/** Every fourth row is a payment the platform has (a match), the others are not there. */
const matching: string[] = []

beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  expect((await c.run(['sandbox', 'status'])).code).toBe(0)
  const runtime = runtimeIn(c.env.XDG_DATA_HOME!)
  const client: ClientConfig = {baseUrl: runtime.url, mchNo: runtime.merchant.mchNo, appId: runtime.merchant.appId, privateKey: loadPrivateKey(readFileSync(runtime.merchant.privateKeyFile, 'utf8')), platformKey: loadPublicKey(runtime.platformPublicKeyPem), verify: true}
  const rows = ['bizOrderNo,amount,status']
  for (let i = 0; i < 200; i++) {
    if (i % 4 === 0) {
      const bizOrderNo = `PK${process.pid}x${i}`
      await call(client, endpoints.pay, {bizOrderNo, title: 'Tea', amount: 100 + i, authCode: '134567890123456789'})
      matching.push(bizOrderNo)
      rows.push(`${bizOrderNo},${100 + i},success`)
    } else rows.push(`P-GONE-${i},${100 + i},success`)
  }
  file = join(c.dir, 'ledger.csv')
  writeFileSync(file, `${rows.join('\n')}\n`)
  proxy = await proxyTo(runtime.url)
})

afterAll(async () => {
  await proxy?.close()
  await c.cleanup()
})

const queried = () => proxy.received.filter((r) => r.path === '/unipay/query/pay-order').map((r) => r.body!.bizOrderNo as string)
const reportedNumbers = (stdout: string) => stdout.split('\n').slice(1).filter(Boolean).map((line) => line.split('\t')[2])

describe('reconcile, killed', () => {
  it('killed with SIGKILL mid-run and resumed: every row reported exactly once, none compared asked again', async () => {
    const journal = `${file}.reconcile-journal`
    // slow enough to be cut in the middle: each answer waits a little
    proxy.delayMs = 20
    const child = spawn(process.execPath, [BIN, 'reconcile', file, '--base-url', proxy.url, '--concurrency', '4'], {env: c.env, stdio: ['ignore', 'pipe', 'pipe']})
    let killedOut = ''
    child.stdout.on('data', (d) => (killedOut += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const lines = () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').length : 0)
    await waitFor(() => lines() > 60, 60_000)
    child.kill('SIGKILL')
    expect(await exited).toBe(null)
    const askedBefore = queried()
    expect(askedBefore.length).toBeLessThan(200)
    expect(statSync(journal).mode & 0o777).toBe(0o600)
    const killedReported = reportedNumbers(killedOut)
    expect(killedReported.length).toBeGreaterThan(20)

    proxy.received.length = 0
    proxy.delayMs = 0
    const out = join(c.dir, 'differences.csv')
    const resumed = await c.run(['reconcile', file, '--base-url', proxy.url, '--concurrency', '4', '--resume', '--out', out])
    expect(resumed.code, resumed.stderr).toBe(5)
    expect(resumed.stderr).toContain('no longer running; this one took it over')
    expect(resumed.stderr).toMatch(/resuming: \d+ of 200 rows compared by an earlier run/)
    expect(resumed.stderr).toContain('200 of 200 rows compared')
    expect(resumed.stderr).toContain('50 matched, 150 differ')
    // stdout: no difference twice across the two runs, none found by the killed run asked again
    const resumedReported = reportedNumbers(resumed.stdout)
    const all = [...killedReported, ...resumedReported]
    expect(new Set(all).size).toBe(all.length)
    const askedAgain = queried().filter((number) => askedBefore.includes(number))
    expect(askedAgain.filter((number) => killedReported.includes(number))).toEqual([])
    // only what was in flight at the kill, or a match not yet written, is asked twice
    expect(askedAgain.length).toBeLessThanOrEqual(12)
    // --out: every difference of the ledger exactly once, from both runs
    const csv = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((line) => line.split(',')[2])
    expect(csv.sort()).toEqual(Array.from({length: 200}, (_, i) => i).filter((i) => i % 4 !== 0).map((i) => `P-GONE-${i}`).sort())
    expect(matching.filter((number) => csv.includes(number))).toEqual([])
  })
})
