// What `transfer batch` and `transfer batch status` share: --wait [DURATION] (a flag whose value
// is optional), interruption by SIGINT/SIGTERM, and the summary with its documented exit code.
import {Flags} from '@oclif/core'
import {UsageError} from '../errors.js'
import {centsToYuan} from '../protocol/money.js'
import {batchExitCode, type Summary, type Tally} from '../services/batch/index.js'

export const DEFAULT_WAIT = '10m'
const DURATION = /^(\d+)(ms|s|m|h)?$/

export const waitFlag = Flags.string({
  description: `follow rows left processing until they are final, for at most DURATION (30s, 10m, 2h; bare --wait: ${DEFAULT_WAIT})`,
  helpValue: '[DURATION]',
})

/** oclif flags always take a value: a bare --wait gets the default one. */
export function withWaitDefault(argv: string[]): string[] {
  const at = argv.indexOf('--wait')
  const dash = argv.indexOf('--')
  if (at === -1 || (dash !== -1 && dash < at) || DURATION.test(argv[at + 1] ?? '')) return argv
  return [...argv.slice(0, at + 1), DEFAULT_WAIT, ...argv.slice(at + 1)]
}

export function parseDuration(text: string | undefined): number {
  if (text === undefined) return 0
  const match = DURATION.exec(text.trim())
  if (!match) throw new UsageError(`--wait: "${text}" is not a duration (say 30s, 10m or 2h)`)
  return Number(match[1]) * {ms: 1, s: 1000, m: 60_000, h: 3_600_000}[match[2] ?? 's']!
}

/**
 * SIGINT/SIGTERM abort the controller (the batch stops sending and reports); a second signal
 * ends the process at once. `release` puts the default handling back.
 */
export function interruptible(onSignal: (signal: NodeJS.Signals) => void) {
  const controller = new AbortController()
  let received: NodeJS.Signals | undefined
  const handler = (signal: NodeJS.Signals) => {
    if (received) process.exit(signal === 'SIGINT' ? 130 : 143)
    received = signal
    onSignal(signal)
    controller.abort(signal)
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    signal: controller.signal,
    get received() {
      return received
    },
    release() {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    },
  }
}

export function countsLine(tally: Tally): string {
  const {counts} = tally
  return `${counts.success} success, ${counts.processing} processing, ${counts.fail} failed, ${counts.unknown} unknown`
}

/** The exit code and the closing note of a run. */
export function verdict(tally: Tally & Partial<Pick<Summary, 'stopped' | 'notSent'>>, command: string, interrupted?: NodeJS.Signals): {exitCode: number; note?: string} {
  if (interrupted) {
    return {exitCode: interrupted === 'SIGINT' ? 130 : 143, note: `interrupted by ${interrupted}: ${tally.notSent ?? 0} row(s) not sent${tally.counts.unknown ? `, ${tally.counts.unknown} in flight` : ''}; finish with: ${command} --resume`}
  }
  const exitCode = batchExitCode(tally)
  const see = tally.outFile ?? tally.journal
  if (exitCode === 4) return {exitCode, note: `platform unreachable: nothing more was sent (${tally.notSent ?? 0} row(s) not sent); run again with --resume`}
  if (exitCode === 5) {
    const failed = tally.counts.fail + tally.counts.unknown
    const notes = failed ? [`${failed} row(s) did not succeed (see ${see})${tally.counts.unknown ? '; run again with --resume to settle the unknown ones' : ''}`] : []
    if (tally.notSent) notes.push(`${tally.notSent} row(s) were never sent; finish with: ${command} --resume`)
    return {exitCode, note: notes.join('; ')}
  }
  if (exitCode === 6) return {exitCode, note: `${tally.counts.processing} row(s) still processing: check later with \`transfer batch status\`, or wait with --wait`}
  return {exitCode}
}

export function amountNote(summary: Summary): string {
  return `${summary.rows} rows, ${centsToYuan(summary.totalCents)} yuan`
}

/** The rows that did not succeed, one line each, the first `most` of them. */
export function failedRowLines(failed: Tally['failed'], more: string, most = 20): string[] {
  const lines = failed.slice(0, most).map((row) => `  line ${row.line}: ${row.bizTransferNo} ${row.outcome}${row.transferNo ? ` ${row.transferNo}` : ''}${row.code ? ` (${row.code})` : ''}: ${row.message ?? ''}`)
  if (failed.length > most) lines.push(`  ... and ${failed.length - most} more${more}`)
  return lines
}
