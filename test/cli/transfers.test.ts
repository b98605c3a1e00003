import {spawn} from 'node:child_process'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {QueryAllocResult} from '../../src/commands/query/alloc.js'
import type {QueryTransferResult} from '../../src/commands/query/transfer.js'
import type {SandboxBalanceResult} from '../../src/commands/sandbox/balance.js'
import type {SandboxStartResult} from '../../src/commands/sandbox/start.js'
import type {TransferBatchResult} from '../../src/commands/transfer/batch.js'
import type {TransferResult} from '../../src/commands/transfer/index.js'
import {cli, type Cli} from '../helpers/cli.js'
import {sandboxTransfers, waitFor, type SandboxTransfer} from '../helpers/sandbox.js'

// Thousands of signed calls: CPU-bound, so on a shared, overloaded machine they need room
const BATCH_TIMEOUT_MS = 360_000

let c: Cli
let sandboxUrl = ''
beforeAll(async () => {
  c = cli()
  sandboxUrl = (await c.result<SandboxStartResult>(['sandbox', 'start', '--time-scale', '10'])).url
})
afterAll(async () => {
  await c.cleanup()
})

const balance = async (on: Cli): Promise<number> => (await on.result<SandboxBalanceResult>(['sandbox', 'balance'])).balance

function payoutFile(name: string, rows: number, prefix: string, on: Cli = c): {file: string; cents: number} {
  let text = 'channel,payeeType,payeeAccount,amount,title\n'
  let cents = 0
  for (let i = 0; i < rows; i++) {
    const amount = 100 + (i % 37)
    cents += amount
    text += `walletB,user_id,2088${prefix}${i},${amount},Payout ${i}\n`
  }
  const file = join(on.dir, name)
  writeFileSync(file, text)
  return {file, cents}
}

describe('allocation', () => {
  it('splits a paid allocatable order to two bound receivers, refuses an unbound one and a second split', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Split me', '--amount', '1000', '--auth-code', '134567890123456789', '--allocation'])
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', '1900000109', '--name', '示例商户'])).code).toBe(0)
    expect((await c.run(['sandbox', 'receivers', 'bind', 'PERSONAL_OPENID', 'oRecv2'])).code).toBe(0)
    const unbound = await c.run(['alloc', '--biz-order-no', order.bizOrderNo, '--receiver', 'USER_ID:2088999:1.00'])
    expect(unbound.code).toBe(1)
    expect(unbound.stderr).toContain('receivers[0]: USER_ID:2088999 is not bound to this merchant; bind it first')
    const created = await c.json(['alloc', '--biz-order-no', order.bizOrderNo, '--biz-alloc-no', 'AL-1', '--receiver', 'MERCHANT_ID:1900000109:6.00:示例商户', '--receiver', 'PERSONAL_OPENID:oRecv2:3.5'])
    expect(created.code).toBe(0)
    expect(created.body.response.data).toMatchObject({bizAllocNo: 'AL-1', status: 'processing'})
    expect(created.body.data.status).toBe('processing')
    await waitFor(async () => (await c.result<QueryAllocResult>(['query', 'alloc', '--biz-alloc-no', 'AL-1'])).status === 'success')
    const query = await c.run(['query', 'alloc', '--biz-alloc-no', 'AL-1'])
    expect(query.stdout).toMatch(/^MERCHANT_ID\t1900000109\t示例商户\t6.00\tsuccess \(succeeded\)\t\t\d{4}-/m)
    expect(query.stdout).toMatch(/^PERSONAL_OPENID\toRecv2\t\t3.50\tsuccess/m)
    const second = await c.run(['alloc', '--trade-no', order.tradeNo, '--receiver', 'PERSONAL_OPENID:oRecv2:1'])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('already has allocation')
    const bad = await c.run(['alloc', '--biz-order-no', order.bizOrderNo, '--receiver', 'PERSONAL_OPENID:oRecv2:1.005'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('receivers[0].amount: "1.005" is not an amount in yuan with at most 2 decimals')
  })
})

describe('transfer', () => {
  it('transfers, queries, refuses a duplicate, and checks channel rules before sending', async () => {
    expect(await c.result<TransferResult>(['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088001', '--amount', '250', '--biz-transfer-no', 'TF-1'])).toMatchObject({bizTransferNo: 'TF-1', status: 'processing'})
    await waitFor(async () => (await c.result<QueryTransferResult>(['query', 'transfer', '--biz-transfer-no', 'TF-1', '--channel', 'walletB'])).status === 'success')
    const dup = await c.run(['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088001', '--amount', '250', '--biz-transfer-no', 'TF-1'])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain('platform error 10507: duplicate transfer')
    const wrongType = await c.run(['transfer', '--channel', 'walletA', '--payee-type', 'user_id', '--payee-account', 'x', '--amount', '100'])
    expect(wrongType.code).toBe(2)
    expect(wrongType.stderr).toContain('--payee-type: user_id is not taken by walletA (use openid)')
    const bigNoName = await c.run(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'o1', '--yuan', '2000'])
    expect(bigNoName.code).toBe(2)
    expect(bigNoName.stderr).toContain('--payee-name: is required')
    const walletA = await c.result<TransferResult>(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'o1', '--amount', '100'])
    expect(walletA.confirmUrl).toMatch(new RegExp(`^${sandboxUrl}/transfer/confirm/TR\\d+$`))
  })
})

describe('transfer batch', () => {
  it('refuses a file with bad rows as a whole, listing every bad row by line', async () => {
    const before = (await sandboxTransfers(c)).length
    const file = join(c.dir, 'bad.csv')
    writeFileSync(file, 'channel,payeeType,payeeAccount,amount,colour\nwalletB,user_id,2088,100,red\nwalletA,user_id,o1,100,\nwalletB,user_id,,abc,\nwalletD,phone,138,1.5,\n')
    const result = await c.run(['transfer', 'batch', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('line 1: colour: unknown column')
    expect(result.stderr).toContain('line 3: payeeType: user_id is not taken by walletA (use openid)')
    expect(result.stderr).toContain('line 4: amount: "abc" is not a whole number of cents')
    expect(result.stderr).toContain('line 4: payeeAccount: is required')
    expect(result.stderr).toContain('line 5: amount: "1.5" is not a whole number of cents')
    expect(result.stderr).toContain('problems in')
    expect(existsSync(`${file}.journal`)).toBe(false)
    expect((await sandboxTransfers(c)).length).toBe(before)
  })

  it('prints the plan for a dry run and sends nothing', async () => {
    const {file, cents} = payoutFile('plan.csv', 50, 'P')
    const plan = await c.result<TransferBatchResult>(['transfer', 'batch', file, '--dry-run'])
    expect(plan).toMatchObject({rows: 50, totalCents: cents, byChannel: {walletB: {rows: 50, cents}}})
    expect(existsSync(`${file}.journal`)).toBe(false)
  })

  it('completes 10,000 rows with every row accounted for, and exits 5 when some rows fail', async () => {
    const {file} = payoutFile('big.csv', 10_000, 'BIG')
    const out = join(c.dir, 'big-results.csv')
    const result = await c.run(['transfer', 'batch', file, '--concurrency', '16', '--out', out])
    expect(result.code).toBe(6) // walletB transfers are processing when accepted
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(10_000)
    expect(new Set(lines.map((l) => l.bizTransferNo)).size).toBe(10_000)
    expect(lines.every((l) => l.outcome === 'processing' || l.outcome === 'success')).toBe(true)
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(10_001)
    const mine = (await sandboxTransfers(c)).filter((t) => lines.some((l) => l.bizTransferNo === t.bizTransferNo))
    expect(mine).toHaveLength(10_000)

    const mixed = join(c.dir, 'mixed.csv')
    writeFileSync(mixed, 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088M1,100\nwalletB,user_id,2088M2_refused,100\n')
    const partial = await c.run(['transfer', 'batch', mixed])
    expect(partial.code).toBe(5)
    expect(partial.stderr).toMatch(/2 rows, 2\.00 yuan: \d success, \d processing, 1 failed, 0 unknown/)
  }, BATCH_TIMEOUT_MS)
})

// Its own sandbox: the balance check must see only this test's transfers, not an earlier test's
// walletA transfer expiring (and refunding) inside its window.
describe('transfer batch, killed', () => {
  let k: Cli
  beforeAll(async () => {
    k = cli()
    expect((await k.json(['sandbox', 'start', '--time-scale', '10'])).code).toBe(0)
  })
  afterAll(async () => {
    await k.cleanup()
  })

  it('survives being killed at random moments: resumed, every row is paid exactly once', async () => {
    const {file, cents} = payoutFile('kill.csv', 3000, 'K', k)
    const startBalance = await balance(k)
    const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
    for (const delay of [200, 600, 400, 800]) {
      const child = spawn(process.execPath, [bin, 'transfer', 'batch', file, '--concurrency', '16', ...(existsSync(`${file}.journal`) ? ['--resume'] : [])], {
        env: k.env,
        stdio: 'ignore',
      })
      // listen for the exit at once: a run may end (or fail) before the kill comes
      let ended = false
      const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (ended = true))
      // time the kill from this run's first journal entries, not from the spawn: on a loaded
      // machine Node's start alone can outlast a fixed delay, and then no row is ever interrupted
      const journalSize = () => (existsSync(`${file}.journal`) ? statSync(`${file}.journal`).size : 0)
      const before = journalSize()
      await waitFor(() => ended || journalSize() > before, 60_000)
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * 400))
      child.kill('SIGKILL')
      await exited
    }
    const finish = await k.run(['transfer', 'batch', file, '--resume', '--concurrency', '16', '--wait', '60s'])
    expect(finish.code).toBe(0)
    expect(finish.stderr).toMatch(/resuming: \d+ of 3000 rows were finished by an earlier run/)
    const mine = (await sandboxTransfers(k)).filter((t) => t.bizTransferNo.startsWith('BT') && t.amount >= 100)
    const byKey = new Map<string, SandboxTransfer[]>()
    for (const t of mine) byKey.set(t.bizTransferNo, [...(byKey.get(t.bizTransferNo) ?? []), t])
    const {derivedBizTransferNo} = await import('../../src/services/batch.js')
    const {createHash} = await import('node:crypto')
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex')
    for (let i = 0; i < 3000; i++) {
      const records = byKey.get(derivedBizTransferNo(sha, i))
      expect(records, `row ${i}`).toHaveLength(1)
      expect(records![0].submissions, `row ${i}`).toBe(1)
    }
    await waitFor(async () => (await balance(k)) === startBalance - cents)
    const again = await k.run(['transfer', 'batch', file, '--resume'])
    expect(again.stderr).toContain('resuming: 3000 of 3000 rows were finished by an earlier run')
  }, BATCH_TIMEOUT_MS)
})
