// kill -9 at random moments, then --resume: every row paid exactly once. In its own file (and
// its own sandbox), so the suite runs it beside the others.
import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import type {SandboxBalanceResult} from '../../src/commands/sandbox/balance.js'
import type {Cli} from '../helpers/cli.js'
import {BATCH_TIMEOUT_MS, ownSandboxCli, payoutFile} from '../helpers/payouts.js'
import {sandboxTransfers, waitFor, type SandboxTransfer} from '../helpers/sandbox.js'

const balance = async (on: Cli): Promise<number> => (await on.result<SandboxBalanceResult>(['sandbox', 'balance'])).balance

// Its own sandbox: the balance check must see only this test's transfers, not an earlier test's
// walletA transfer expiring (and refunding) inside its window.
describe('transfer batch, killed', () => {
  const own = ownSandboxCli()

  it('survives being killed at random moments: resumed, every row is paid exactly once', async () => {
    const k = own()
    const {file, cents} = payoutFile(k, 'kill.csv', 3000, 'K')
    const startBalance = await balance(k)
    const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
    for (const rows of [20, 120, 60, 200]) {
      const child = spawn(process.execPath, [bin, 'transfer', 'batch', file, '--concurrency', '16', ...(existsSync(`${file}.journal`) ? ['--resume'] : [])], {
        env: k.env,
        stdio: 'ignore',
      })
      // listen for the exit at once: a run may end (or fail) before the kill comes
      let ended = false
      const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (ended = true))
      // the kill comes at a random point of this run's progress (some tens to hundreds of journal
      // lines in), not after a delay: on a loaded machine Node's start alone can outlast a fixed
      // delay, and then no row is ever interrupted
      const journalLines = () => (existsSync(`${file}.journal`) ? readFileSync(`${file}.journal`, 'utf8').split('\n').length : 0)
      const killAt = journalLines() + rows + Math.floor(Math.random() * rows)
      await waitFor(() => ended || journalLines() >= killAt)
      child.kill('SIGKILL')
      await exited
    }
    const finish = await k.run(['transfer', 'batch', file, '--resume', '--concurrency', '16', '--wait', '10m'])
    expect(finish.code).toBe(0)
    expect(finish.stderr).toMatch(/resuming: \d+ of 3000 rows have a result from an earlier run/)
    const mine = (await sandboxTransfers(k)).filter((t) => t.bizTransferNo.startsWith('BT') && t.amount >= 100)
    const byKey = new Map<string, SandboxTransfer[]>()
    for (const t of mine) byKey.set(t.bizTransferNo, [...(byKey.get(t.bizTransferNo) ?? []), t])
    const {derivedBizTransferNo} = await import('../../src/services/batch/index.js')
    const {createHash} = await import('node:crypto')
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex')
    for (let i = 0; i < 3000; i++) {
      const records = byKey.get(derivedBizTransferNo(sha, i))
      expect(records, `row ${i}`).toHaveLength(1)
      expect(records![0].submissions, `row ${i}`).toBe(1)
    }
    await waitFor(async () => (await balance(k)) === startBalance - cents)
    const again = await k.run(['transfer', 'batch', file, '--resume'])
    expect(again.stderr).toContain('resuming: 3000 of 3000 rows have a result from an earlier run')
  }, BATCH_TIMEOUT_MS)
})
