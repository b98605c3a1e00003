// Payout files for batch tests: walletB rows (accepted, then processing), amounts varied.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Cli} from './cli.js'

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
