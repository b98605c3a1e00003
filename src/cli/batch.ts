// What `transfer batch` and `transfer batch status` share: --wait [DURATION] (a flag whose value
// is optional), interruption by SIGINT/SIGTERM, the progress bar, and the summary with its
// documented exit code and the full command lines that finish the job.
import {relative} from 'node:path'
import type {SingleBar} from 'cli-progress'
import {UsageError} from '../errors.js'
import {DURATION_RULE, notADuration, parseDuration} from '../protocol/duration.js'
import {centsToYuan} from '../protocol/money.js'
import {printable} from '../protocol/printable.js'
import {counted} from '../protocol/plural.js'
import {batchExitCode, type Summary, type Tally} from '../services/batch/index.js'
import {Flags} from './base.js'

// the command lines a batch's notes suggest: as every command's (lookup's next steps too)
export {commandLine} from '../output/shell.js'
export {profileWords} from './hints.js'

const DEFAULT_WAIT = '10m'

export const waitFlag = Flags.string({
  description: `follow rows left processing until they are final, for at most DURATION: ${DURATION_RULE} (bare --wait: ${DEFAULT_WAIT})`,
  helpValue: '[DURATION]',
})

/** oclif flags always take a value: a bare --wait gets the default one. */
export function withWaitDefault(argv: string[]): string[] {
  const at = argv.indexOf('--wait')
  const dash = argv.indexOf('--')
  if (at === -1 || (dash !== -1 && dash < at) || parseDuration(argv[at + 1] ?? '') !== undefined) return argv
  return [...argv.slice(0, at + 1), DEFAULT_WAIT, ...argv.slice(at + 1)]
}

/** --wait in milliseconds; 0 without it. */
export function parseWait(text: string | undefined): number {
  if (text === undefined) return 0
  const ms = parseDuration(text)
  if (ms === undefined) throw new UsageError(`--wait: ${notADuration(text)}`)
  return ms
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

/** A path as the user in this folder would type it: relative below it, else absolute. */
export function typed(path: string): string {
  const below = relative(process.cwd(), path)
  return below && !below.startsWith('..') ? below : path
}



/** What a batch's notes tell the user to run next, written out in full. */
export interface NextCommands {
  /** Finishes the run: the batch command with every flag that matters, without --resume. */
  run: string
  /** Settles it later: `transfer batch status FILE` with the profile and --out. */
  status: string
}

/** The exit code and the closing note of a run. */
export function verdict(tally: Tally & Partial<Pick<Summary, 'stopped' | 'notSent'>>, next: NextCommands, interrupted?: NodeJS.Signals): {exitCode: number; note?: string} {
  if (tally.unwritten) {
    // the results file alone was lost: written again from the journal, nothing sent (never --again)
    const {file, problem} = tally.unwritten
    const rest = verdict({...tally, unwritten: undefined}, next, interrupted)
    const lost = `${file} could not be written (${problem}); nothing is lost: every outcome is in ${tally.journal}. Once there is room, write the results from it, sending nothing, with: ${next.status}`
    return {exitCode: interrupted ? rest.exitCode : batchExitCode(tally), note: rest.note ? `${lost}; ${rest.note}` : lost}
  }
  const resume = `${next.run} --resume`
  if (interrupted) {
    const inFlight = tally.counts.unknown ? `, ${tally.counts.unknown} in flight` : ''
    return {exitCode: interrupted === 'SIGINT' ? 130 : 143, note: `interrupted by ${interrupted}: ${counted(tally.notSent ?? 0, 'row')} not sent${inFlight}; finish with: ${resume}`}
  }
  const exitCode = batchExitCode(tally)
  const see = tally.outFile ?? tally.journal
  if (exitCode === 4) return {exitCode, note: `platform unreachable: nothing more was sent (${counted(tally.notSent ?? 0, 'row')} not sent); once it answers, finish with: ${resume}`}
  if (exitCode === 5) {
    const notes: string[] = []
    const failed = tally.counts.fail + tally.counts.unknown
    if (failed) notes.push(`${counted(failed, 'row')} did not succeed (see ${see})`)
    if (tally.counts.unknown) notes.push(`settle the ${tally.counts.unknown} unknown with: ${resume}`)
    if (tally.notSent) notes.push(`${counted(tally.notSent, 'row')} ${tally.notSent === 1 ? 'was' : 'were'} never sent; finish with: ${resume}`)
    // rows an earlier run submitted whose journal is not here (moved away, or the same file elsewhere)
    const before = tally.failed.filter((row) => row.code === 10507).length
    if (before) notes.push(`${counted(before, 'row')} had been submitted before this run, which paid them nothing; to pay the whole file again on purpose: ${next.run} --again`)
    return {exitCode, note: notes.join('; ')}
  }
  if (exitCode === 6) {
    const processing = counted(tally.counts.processing, 'row')
    return {exitCode, note: `${processing} still processing: check later with: ${next.status} (add --wait 1h to follow them until final)`}
  }
  return {exitCode}
}

/** The rows and amount of the summary: the whole file's, or, for a run that stopped early, what was sent of it. */
export function amountNote(summary: Summary): string {
  const {counts, cents} = summary
  if (!summary.stopped && !summary.notSent) return `${counted(summary.rows, 'row')}, ${centsToYuan(summary.totalCents)} yuan`
  const sent = counts.success + counts.processing + counts.fail + counts.unknown
  const sentCents = cents.success + cents.processing + cents.fail + cents.unknown
  return `sent ${sent} of ${counted(summary.rows, 'row')}, ${centsToYuan(sentCents)} of ${centsToYuan(summary.totalCents)} yuan`
}

/** The rows that did not succeed, one line each, the first `most` of them. */
export function failedRowLines(failed: Tally['failed'], more: string, most = 20): string[] {
  const lines = failed.slice(0, most).map((row) => `  line ${row.line}: ${row.bizTransferNo} ${row.outcome}${row.transferNo ? ` ${row.transferNo}` : ''}${row.code ? ` (${row.code})` : ''}: ${row.message ?? ''}`)
  if (failed.length > most) lines.push(`  ... and ${failed.length - most} more${more}`)
  return lines
}

/** How many rows are still processing, as a follow-up goes: said when it starts and when the number goes down. */
export function waitNote(first: string): (processing: number) => string | undefined {
  let started = false
  return (processing) => {
    if (!processing) return undefined
    const rows = counted(processing, 'processing row')
    if (started) return `${rows} left...`
    started = true
    return `${first} ${rows}...`
  }
}

/** Lines for stdout, written a turn of the event loop's worth at a time: a write per row of a batch would be a system call each. */
export function lineWriter(out: (text: string) => void): {push(line: string): void; flush(): void} {
  let lines: string[] = []
  const flush = () => {
    if (lines.length) out(lines.join('\n'))
    lines = []
  }
  return {
    push(line) {
      if (lines.push(line) === 1) setImmediate(flush)
    },
    flush,
  }
}

interface Progress {
  start(total: number, value: number): void
  increment(): void
  /** Writes a message above the bar; false when no bar is showing. */
  log(text: string): boolean
  /** Clears the bar's line (redrawn at its next update), for a line of stdout on the same terminal. */
  clear(): void
  stop(): void
}

/** A progress bar on stderr, counting `what` (transfers); messages written while it shows go above it, not over it. */
export async function progressBar(stream: NodeJS.WriteStream, what = 'transfers'): Promise<Progress> {
  const {MultiBar, Presets} = await import('cli-progress')
  const bars = new MultiBar({format: `${what} [{bar}] {value}/{total} {percentage}% · {eta_formatted} left`, stream, hideCursor: true}, Presets.shades_classic)
  let bar: SingleBar | undefined
  return {
    start(total, value) {
      bar = bars.create(total, value)
    },
    increment() {
      bar?.increment()
    },
    log(text) {
      if (!bar) return false
      // straight to the stream, past the command's printable output: made printable here
      const shown = printable(text)
      bars.log(shown.endsWith('\n') ? shown : `${shown}\n`)
      bars.update()
      return true
    },
    clear() {
      if (bar) stream.write('\r\u001b[2K')
    },
    stop() {
      if (bar) bars.stop()
      bar = undefined
    },
  }
}
