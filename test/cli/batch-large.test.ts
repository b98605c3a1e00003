// A long batch in its own file (and its own sandbox), so the suite runs it beside the others.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BATCH_TIMEOUT_MS, ownSandboxCli, payoutFile} from '../helpers/payouts.js'
import {sandboxTransfers} from '../helpers/sandbox.js'

const own = ownSandboxCli()

describe('transfer batch, 10,000 rows', () => {
  it('completes 10,000 rows with every row accounted for, and exits 5 when some rows fail', async () => {
    const c = own()
    const {file} = payoutFile(c, 'big.csv', 10_000, 'BIG')
    const out = join(c.dir, 'big-results.csv')
    const result = await c.run(['transfer', 'batch', file, '--concurrency', '16', '--out', out])
    expect(result.code).toBe(6) // walletB transfers are processing when accepted
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(10_000)
    expect(new Set(lines.map((l) => l.bizTransferNo)).size).toBe(10_000)
    expect(lines.every((l) => l.outcome === 'processing' || l.outcome === 'success')).toBe(true)
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(10_001)
    const sent = new Set(lines.map((l) => l.bizTransferNo))
    const mine = (await sandboxTransfers(c)).filter((t) => sent.has(t.bizTransferNo))
    expect(mine).toHaveLength(10_000)

    const mixed = join(c.dir, 'mixed.csv')
    writeFileSync(mixed, 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088M1,100\nwalletB,user_id,2088M2_refused,100\n')
    const partial = await c.run(['transfer', 'batch', mixed])
    expect(partial.code).toBe(5)
    expect(partial.stderr).toMatch(/2 rows, 2\.00 yuan: \d success, \d processing, 1 failed, 0 unknown/)
  }, BATCH_TIMEOUT_MS)
})
