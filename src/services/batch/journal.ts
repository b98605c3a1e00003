// The journal beside the batch file (FILE.journal), one JSON line per entry: "start" once, then
// "sending" before each call and "result" after it, so a run killed at any moment knows which
// rows may have landed. Read back, it gives where every row stands, and what an earlier run of
// the file left: refused, resumed, or archived for a new file.
import {closeSync, createReadStream, existsSync, openSync, writeSync} from 'node:fs'
import {createInterface} from 'node:readline'
import type {ClientConfig} from '../../client/pipeline.js'
import {UsageError} from '../../errors.js'

export type Outcome = 'success' | 'processing' | 'fail' | 'unknown'

export interface RowResult {
  index: number
  line: number
  bizTransferNo: string
  channel: string
  amount: number
  outcome: Outcome
  transferNo?: string
  code?: number
  message?: string
}

/** Where the rows of a batch stand, from its journal and this run. */
export interface Tally {
  rows: number
  counts: Record<Outcome, number>
  /** Rows that did not succeed: failed, or still unknown. */
  failed: Pick<RowResult, 'line' | 'bizTransferNo' | 'outcome' | 'transferNo' | 'code' | 'message'>[]
  journal: string
  outFile?: string
}

/** Which rows are finished: a watermark plus the few finished out of order above it. */
export class FinishedRows {
  private watermark = -1
  private readonly above = new Set<number>()

  add(index: number): void {
    if (index <= this.watermark) return
    this.above.add(index)
    while (this.above.has(this.watermark + 1)) this.above.delete(++this.watermark)
  }

  has(index: number): boolean {
    return index <= this.watermark || this.above.has(index)
  }
}

type StartEntry = {type: 'start'; fileSha256: string; rows: number; mchNo?: string; baseUrl: string; outFile?: string; at: string}
type SendingEntry = {type: 'sending'; index: number; line?: number; bizTransferNo: string; channel?: string; amount?: number}
export type JournalEntry = StartEntry | SendingEntry | ({type: 'result'} & RowResult)

/**
 * A journal's state. A row's results run processing -> final (a later line wins); memory grows
 * with the rows still processing or unknown, not with the file.
 */
export interface JournalState {
  start?: StartEntry
  /** Rows with a result (final or processing). */
  finished: FinishedRows
  /** Rows whose latest result is processing (the row itself only when it is to be followed). */
  pending: Map<number, RowResult | null>
  /** Keep the pending rows, to follow them (--wait, status); else only their indexes. */
  keep: boolean
  /** Rows sent with no result: their outcome is unknown. */
  unresolved: Map<number, SendingEntry>
  /** Final outcomes only (processing is pending.size, unknown is unresolved.size). */
  counts: Record<Outcome, number>
  failed: Tally['failed']
  done: number
}

const emptyCounts = (): Record<Outcome, number> => ({success: 0, processing: 0, fail: 0, unknown: 0})
const failedRow = ({line, bizTransferNo, outcome, transferNo, code, message}: RowResult) => ({line, bizTransferNo, outcome, transferNo, code, message})

function emptyState(keep = true): JournalState {
  return {finished: new FinishedRows(), pending: new Map(), unresolved: new Map(), keep, counts: emptyCounts(), failed: [], done: 0}
}

/** Applies one result to the state: false when the row already had a final one. */
export function applyResult(state: JournalState, result: RowResult): boolean {
  const {index} = result
  if (state.finished.has(index) && !state.pending.has(index)) return false
  if (!state.finished.has(index)) {
    state.finished.add(index)
    state.done++
  }
  state.unresolved.delete(index)
  state.pending.delete(index)
  if (result.outcome === 'processing') state.pending.set(index, state.keep ? result : null)
  else {
    state.counts[result.outcome]++
    if (result.outcome !== 'success') state.failed.push(failedRow(result))
  }
  return true
}

export async function readJournal(journal: string, keep = true): Promise<JournalState> {
  const state = emptyState(keep)
  for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
    let entry: JournalEntry
    try {
      entry = JSON.parse(line)
    } catch {
      continue // a line torn by a kill mid-write: its row is treated as unresolved
    }
    if (entry.type === 'start') state.start = entry
    else if (entry.type === 'sending') {
      if (!state.finished.has(entry.index)) state.unresolved.set(entry.index, entry)
    } else if (entry.type === 'result') {
      const {type: _, ...result} = entry
      applyResult(state, result)
    }
  }
  return state
}

export function tallyOf(state: JournalState, journal: string, unknownRows: RowResult[], outFile?: string): Tally {
  const counts = {...state.counts, processing: state.pending.size, unknown: unknownRows.length}
  return {rows: state.start?.rows ?? state.done + unknownRows.length, counts, failed: [...state.failed, ...unknownRows.map(failedRow)], journal, outFile}
}

/** A journal appended to synchronously (a kill never loses a line already returned); quiet once closed. */
export function openJournal(journal: string) {
  const fd = openSync(journal, 'a', 0o600)
  let open = true
  return {
    write(entry: JournalEntry) {
      if (open) writeSync(fd, `${JSON.stringify(entry)}\n`)
    },
    close() {
      if (open) closeSync(fd)
      open = false
    },
  }
}

/** Resuming or settling a batch on another merchant or platform would look for its rows in the wrong place. */
export function checkSamePlatform(start: StartEntry | undefined, client: ClientConfig, journal: string): void {
  if (!start) return
  if ((start.mchNo ?? '') !== (client.mchNo ?? '')) {
    throw new UsageError(`${journal} was run as merchant ${start.mchNo ?? '(none)'}, but this profile is merchant ${client.mchNo ?? '(none)'}: use the profile the batch was started with`)
  }
  if (start.baseUrl !== client.baseUrl) {
    throw new UsageError(`${journal} was run against ${start.baseUrl}, but this profile points at ${client.baseUrl}: use the profile the batch was started with`)
  }
}

/** An earlier run's state, and where its journal goes when it was a finished run of other content. */
export interface PriorRun {
  state: JournalState
  archiveTo?: string
}

/**
 * What an earlier run of this file left in its journal, checked before the platform is reached:
 * an unfinished run of other content, or of this file without --resume, is refused here.
 */
export async function priorRun(journal: string, fileSha256: string, options: {file: string; resume: boolean; waitMs?: number}): Promise<PriorRun> {
  const keep = Boolean(options.waitMs)
  if (!existsSync(journal)) return {state: emptyState(keep)}
  const read = await readJournal(journal, keep)
  const complete = read.start !== undefined && read.done >= read.start.rows
  if (read.start && read.start.fileSha256 !== fileSha256) {
    if (!complete) {
      throw new UsageError(
        `${journal} holds an unfinished run of other content (sha256 ${read.start.fileSha256.slice(0, 12)}, started ${read.start.at}): restore that file and run with --resume to finish it, or move the journal away to start this file`,
      )
    }
    return {state: emptyState(keep), archiveTo: `${options.file}.${read.start.at.replace(/[:.]/g, '-')}.${read.start.fileSha256.slice(0, 12)}.journal`}
  }
  if (!complete && !options.resume) throw new UsageError(`${journal} records an unfinished run of ${options.file}: pass --resume to finish it (rows already paid are not paid again), or remove it to start over`)
  return {state: read}
}
