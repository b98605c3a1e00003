// Payout files for batch tests: walletB rows (accepted, then processing), amounts varied.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect} from 'vitest'
import {cli, type Cli} from './cli.js'

/** Thousands of signed calls: CPU-bound, so on a shared, overloaded machine they need room. */
export const BATCH_TIMEOUT_MS = 360_000

/** Writes `rows` payouts into the test's folder; returns the file and its total in cents. */
export function payoutFile(on: Cli, name: string, rows: number, prefix: string): {file: string; cents: number} {
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

/**
 * A CLI with a sandbox of its own, started before the tests of the file or block that calls this
 * and removed after them: a batch test counts its sandbox's transfers. Its clock runs, so walletB
 * transfers settle (300 ms after they are accepted) while a batch's `--wait` follows them.
 */
export function ownSandboxCli(): () => Cli {
  let on: Cli | undefined
  beforeAll(async () => {
    on = cli()
    expect((await on.run(['sandbox', 'start'])).code).toBe(0)
  })
  afterAll(async () => {
    await on?.cleanup()
  })
  return () => on!
}
