// Rows left processing: followed until final (--wait), or re-queried later (`transfer batch
// status`), each change journalled.
import {createHash} from 'node:crypto'
import {createReadStream, existsSync} from 'node:fs'
import type {ClientConfig} from '../../client/pipeline.js'
import {UsageError} from '../../errors.js'
import {checkSamePlatform} from '../files/journal.js'
import {lockJournal} from '../files/lock.js'
import {sleep} from '../files/walk.js'
import {applyResult, batchFileOf, checkRunFiles, openJournal, readJournal, tallyOf, type BatchLog, type JournalState, type RowResult, type Tally} from './journal.js'
import {writeResults, type BatchSource} from './results.js'
import {lookUp, sameRow} from './settle.js'

/**
 * Re-queries rows until none is processing or the deadline passes, with backoff between rounds
 * (1 s doubling to 30 s). Changed rows are journalled. One round when the deadline is now.
 * `onWait` hears how many rows are processing: first, then whenever that number goes down;
 * `onSettled` hears each row that changed.
 */
export async function followPending(
  client: ClientConfig,
  state: JournalState,
  log: BatchLog,
  options: {deadline: number; concurrency: number; signal?: AbortSignal; onWait?: (processing: number) => void; onSettled?: (result: RowResult) => void},
): Promise<void> {
  let delay = 1000
  let told: number | undefined
  for (;;) {
    if (state.pending.size !== told) options.onWait?.((told = state.pending.size))
    const rows = [...state.pending.values()].filter((row) => row !== null)
    let next = 0
    const worker = async () => {
      while (next < rows.length && !options.signal?.aborted) {
        const row = rows[next++]
        const found = await lookUp(client, row)
        if (!found || found === 'unreachable' || found.outcome === 'processing') continue
        const result: RowResult = {...row, ...sameRow(found, row), ...(found.outcome === 'fail' && !found.message ? {message: 'failed after it was accepted'} : {})}
        log.write({type: 'result', ...result})
        applyResult(state, result)
        options.onSettled?.(result)
      }
    }
    await Promise.all(Array.from({length: Math.min(options.concurrency, rows.length)}, worker))
    const left = options.deadline - Date.now()
    if (state.pending.size === 0 || left <= 0 || options.signal?.aborted) return
    await sleep(Math.min(delay, left), options.signal)
    delay = Math.min(delay * 2, 30_000)
  }
}

interface StatusOptions {
  /** The batch file (its FILE.journal is read), or a journal itself. */
  file: string
  client: ClientConfig
  concurrency: number
  outFile?: string
  waitMs?: number
  signal?: AbortSignal
  onWait?: (processing: number) => void
  /** A lock taken over from a process that is gone. */
  onNotice?: (message: string) => void
}

/** Where a batch stands now; `runFlags` are its run's own flags, for the command that finishes it. */
export type Status = Tally & {notSent: number; runFlags?: string[]}

/** Re-queries every row not final in a batch's journal, records what changed, rewrites --out. */
export async function batchStatus(options: StatusOptions): Promise<Status> {
  const byJournal = options.file.endsWith('.journal')
  const journal = byJournal ? options.file : `${options.file}.journal`
  if (!existsSync(journal)) throw new UsageError(`no journal ${journal}: ${options.file} has not been run (or its journal was moved)`)
  const lock = await lockJournal(journal, 'transfer batch status')
  try {
    if (lock.tookOver) options.onNotice?.(lock.tookOver)
    return await settle(options, journal, byJournal)
  } finally {
    lock.release()
  }
}

async function settle(options: StatusOptions, journal: string, byJournal: boolean): Promise<Status> {
  const state = await readJournal(journal)
  const file = byJournal ? batchFileOf(journal) : options.file
  const {start} = state
  // the batch file, when it is the one the journal speaks of: it names the rows never sent
  let source: BatchSource | undefined
  if (start && existsSync(file)) {
    const sha256 = await fileSha256(file)
    if (sha256 === start.fileSha256) source = start.defaults ? {file, defaults: start.defaults, fileSha256: sha256, runId: start.runId} : undefined
    // the rows of an edited file are not the rows the journal speaks of
    else if (!byJournal) {
      throw new UsageError(`${options.file} changed since the run ${journal} records (sha256 ${start.fileSha256.slice(0, 12)}, now ${sha256.slice(0, 12)}): restore it, or give the journal itself to see that run`)
    }
  }
  checkSamePlatform(start, options.client, journal, 'the batch')
  const outFile = options.outFile ?? start?.outFile
  checkRunFiles(file, outFile, {journal})
  const log = openJournal(journal)
  try {
    // rows sent with no known outcome: found now, they get one; not found, they were never created
    for (const [index, entry] of state.unresolved) {
      if (!entry.channel) continue
      const found = await lookUp(options.client, entry)
      if (!found || found === 'unreachable') continue
      const result: RowResult = {index, line: entry.line ?? 0, bizTransferNo: entry.bizTransferNo, channel: entry.channel, amount: entry.amount ?? 0, ...sameRow(found, entry)}
      log.write({type: 'result', ...result})
      applyResult(state, result)
    }
    await followPending(options.client, state, log, {deadline: Date.now() + (options.waitMs ?? 0), concurrency: options.concurrency, signal: options.signal, onWait: options.onWait})
  } finally {
    log.close()
  }
  const unknownRows = [...state.unresolved].map(([index, e]): RowResult => ({index, line: e.line ?? 0, bizTransferNo: e.bizTransferNo, channel: e.channel ?? '', amount: e.amount ?? 0, outcome: 'unknown', message: 'sent, outcome unknown: not found on the platform (or it could not be reached)'}))
  const tally = tallyOf(state, journal, unknownRows, outFile)
  if (outFile) tally.unwritten = await writeResults(journal, tally.rows, unknownRows, outFile, source)
  // rows an interrupted or stopped run never reached: only --resume sends them
  const notSent = Math.max(0, (state.start?.rows ?? 0) - state.done - state.unresolved.size)
  return {...tally, notSent, ...(state.start?.flags ? {runFlags: state.start.flags} : {})}
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}
