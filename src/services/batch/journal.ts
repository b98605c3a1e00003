// The journal beside the batch file (FILE.journal), one JSON line per entry: "start" once, then
// "sending" before each call and "result" after it (or "unsent": its request never left), so a
// run killed at any moment knows which rows may have landed. Read back, it gives where every row stands, and what an earlier run of
// the file left: refused, resumed, or archived for a new file.
import {createReadStream, existsSync, readdirSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {UsageError} from '../../errors.js'
import {formatGmt8} from '../../protocol/time.js'
import {counted} from '../../protocol/plural.js'
import {openAppendLog, type AppendLog} from '../files/append-log.js'
import {checkWritable, type KeptFile} from '../files/csv-writer.js'
import {FinishedRows} from '../files/journal.js'

/** A journal's time as every other time on screen: GMT+8, `yyyy-MM-dd HH:mm:ss` (--json keeps the recorded ISO time). */
const shownTime = (at: string): string => formatGmt8(new Date(at))

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

/** A row this run did not send: it stopped first, or the row's request never left the machine (a refused connection). */
export type UnsentRow = Omit<RowResult, 'outcome'> & {outcome: 'not sent'}

/** What a run says of each of its rows. */
export type RowReport = RowResult | UnsentRow

/** Where the rows of a batch stand, from its journal and this run. */
export interface Tally {
  rows: number
  counts: Record<Outcome, number>
  /** The amounts of those rows, in cents. */
  cents: Record<Outcome, number>
  /** Rows that did not succeed: failed, or still unknown. */
  failed: Pick<RowResult, 'line' | 'bizTransferNo' | 'outcome' | 'transferNo' | 'code' | 'message'>[]
  journal: string
  outFile?: string
  /** The result CSV could not be written (a full disk, its folder gone): every outcome is in the journal. */
  unwritten?: {file: string; problem: string}
}

/**
 * `runId`: a run that pays a finished file again (its rows' numbers derive from it); `flags`:
 * the run's own flags, for the command that finishes it (`status` names it); `defaults`: the
 * values rows without a column take, so that `status` can name rows never sent.
 */
type StartEntry = {type: 'start'; fileSha256: string; rows: number; mchNo?: string; baseUrl: string; outFile?: string; at: string; runId?: string; flags?: string[]; defaults?: Record<string, unknown>}
type SendingEntry = {type: 'sending'; index: number; line?: number; bizTransferNo: string; channel?: string; amount?: number}
/** Whether the result CSV was written from this journal: a lost one is written again by `status`, never paid again. */
type ResultsEntry = {type: 'results'; file: string; written: boolean; at: string}
export type JournalEntry = StartEntry | SendingEntry | ({type: 'result'} & RowResult) | ({type: 'unsent'} & UnsentRow) | ResultsEntry

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
  /** Final and processing amounts (unknown ones are the run's to add). */
  cents: Record<Outcome, number>
  failed: Tally['failed']
  done: number
  /** The result CSV the latest attempt failed to write, if it failed. */
  resultsLost?: string
}

const emptyCounts = (): Record<Outcome, number> => ({success: 0, processing: 0, fail: 0, unknown: 0})
const failedRow = ({line, bizTransferNo, outcome, transferNo, code, message}: RowResult) => ({line, bizTransferNo, outcome, transferNo, code, message})

function emptyState(keep = true): JournalState {
  return {finished: new FinishedRows(), pending: new Map(), unresolved: new Map(), keep, counts: emptyCounts(), cents: emptyCounts(), failed: [], done: 0}
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
  // a row's amount is the same in all its results
  if (state.pending.delete(index)) state.cents.processing -= result.amount
  state.cents[result.outcome] += result.amount
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
      entry = JSON.parse(line) as JournalEntry
    } catch {
      continue // a line torn by a kill mid-write: its row is treated as unresolved
    }
    if (entry.type === 'start') state.start = entry
    else if (entry.type === 'sending') {
      if (!state.finished.has(entry.index)) state.unresolved.set(entry.index, entry)
    } else if (entry.type === 'result') {
      const {type: _, ...result} = entry
      applyResult(state, result)
    } else if (entry.type === 'unsent') {
      // its request never left: nothing to look up, and --resume sends it
      if (!state.finished.has(entry.index)) state.unresolved.delete(entry.index)
    } else if (entry.type === 'results') state.resultsLost = entry.written ? undefined : entry.file
  }
  return state
}

export function tallyOf(state: JournalState, journal: string, unknownRows: RowResult[], outFile?: string): Tally {
  const counts = {...state.counts, processing: state.pending.size, unknown: unknownRows.length}
  const cents = {...state.cents, unknown: unknownRows.reduce((sum, row) => sum + row.amount, 0)}
  return {rows: state.start?.rows ?? state.done + unknownRows.length, counts, cents, failed: [...state.failed, ...unknownRows.map(failedRow)], journal, outFile}
}

/**
 * The batch's journal, appended to synchronously. `later` keeps a line until the next write or
 * the close, so a row costs one system call: for results a kill may lose, as the row's "sending"
 * line makes --resume look it up instead.
 */
export const openJournal = (journal: string): BatchLog => openAppendLog<JournalEntry>(journal, 'sending stopped, as every send must be recorded before it goes')
export type BatchLog = AppendLog<JournalEntry>

/** The files a run of a batch keeps: no file it writes may be one of them. */
function keptFiles(file: string, journal: string): KeptFile[] {
  return [
    {path: file, what: 'the batch file'},
    {path: journal, what: 'its journal'},
    {path: `${journal}.lock`, what: "its journal's lock"},
  ]
}

/**
 * Every file a run (or `status`, or a dry run) will write, checked before anything is read from
 * or sent to the platform: the journal's folder (beside the file) can be written, and --out can
 * be, and is none of the files the run keeps. Exit 2, nothing sent.
 */
export function checkRunFiles(file: string, outFile: string | undefined, {journal = `${file}.journal`, writesJournal = true} = {}): void {
  if (writesJournal) checkWritable(`the journal ${journal}`, journal, [{path: file, what: 'the batch file'}])
  if (outFile) checkWritable('--out', outFile, keptFiles(file, journal))
}

/** An earlier run's state, and where its journal goes when it was a finished run: of other content, or of this file paid again. */
export interface PriorRun {
  state: JournalState
  archiveTo?: string
}

/**
 * What earlier runs of this file left, checked before the platform is reached. Refused here: an
 * unfinished run of other content; an unfinished run of this file without --resume; and, unless
 * it is paid again on purpose (--again), a file a finished run has already paid, whether its
 * journal is FILE.journal or one kept aside when a new file took its place.
 */
export async function priorRun(journal: string, fileSha256: string, options: {file: string; resume: boolean; again?: boolean; waitMs?: number}): Promise<PriorRun> {
  const keep = Boolean(options.waitMs)
  const read = existsSync(journal) ? await readJournal(journal, keep) : undefined
  const start = read?.start
  const complete = start !== undefined && read!.done >= start.rows
  if (read && start?.fileSha256 === fileSha256) {
    if (!complete) {
      if (options.again || !options.resume) {
        throw refusal('unfinished', `${journal} records an unfinished run of ${options.file} (started ${shownTime(start.at)}; ${read.done} of ${counted(start.rows, 'row')} have a result)`, {journal, startedAt: start.at})
      }
      return {state: read}
    }
    // --resume of a finished run reports it (and with --wait follows its processing rows)
    if (options.resume) return {state: read}
    if (!options.again) throw alreadyPaid(options.file, journal, read)
    return {state: emptyState(keep), archiveTo: archiveName(options.file, start)}
  }
  if (read && start && !complete) {
    throw refusal('other-unfinished', `${journal} holds an unfinished run of other content (sha256 ${start.fileSha256.slice(0, 12)}, started ${shownTime(start.at)}): ${options.file} cannot start before it is finished`, {journal, startedAt: start.at})
  }
  if (read && !start) {
    // entries but no start line (its write was cut off): the rows it names may have landed
    if (!options.resume) throw refusal('unfinished', `${journal} records an unfinished run of ${options.file}`, {journal})
    return {state: read}
  }
  // no journal of this content: one kept aside may still show the file paid
  if (!options.again) {
    const kept = await keptJournal(options.file, fileSha256)
    if (kept) throw alreadyPaid(options.file, kept, await readJournal(kept, false))
  }
  return {state: emptyState(keep), archiveTo: read && start ? archiveName(options.file, start) : undefined}
}

/** Where a finished journal is kept when another run takes FILE.journal: FILE.<start>.<sha>.journal. */
function archiveName(file: string, start: StartEntry): string {
  return `${file}.${start.at.replace(/[:.]/g, '-')}.${start.fileSha256.slice(0, 12)}.journal`
}

/** The batch file a journal is of: FILE.journal, or a finished run's FILE.<start>.<sha>.journal kept aside. */
export function batchFileOf(journal: string): string {
  const kept = /^(.+)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.[0-9a-f]{12}\.journal$/.exec(journal)
  return kept ? kept[1] : journal.slice(0, -'.journal'.length)
}

/** The latest journal kept aside of a finished run of this content, if any. */
async function keptJournal(file: string, fileSha256: string): Promise<string | undefined> {
  const prefix = `${basename(file)}.`
  const suffix = `.${fileSha256.slice(0, 12)}.journal`
  let latest: {path: string; at: string} | undefined
  for (const name of readdirSync(dirname(file))) {
    if (!name.startsWith(prefix) || !name.endsWith(suffix)) continue
    const path = join(dirname(file), name)
    const start = await firstEntry(path)
    if (start?.type === 'start' && start.fileSha256 === fileSha256 && (!latest || start.at > latest.at)) latest = {path, at: start.at}
  }
  return latest?.path
}

async function firstEntry(journal: string): Promise<JournalEntry | undefined> {
  for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
    try {
      return JSON.parse(line) as JournalEntry
    } catch {
      return undefined
    }
  }
  return undefined
}

/** A finished file run again: nothing is sent, and the refusal says when it was paid. */
function alreadyPaid(file: string, journal: string, state: JournalState): UsageError {
  const {counts, start} = state
  const outcomes = `${counts.success} success, ${state.pending.size} processing, ${counts.fail} failed`
  return refusal(
    'already-run',
    `${file} was run to the end already (${start ? `started ${shownTime(start.at)}, ` : ''}${counted(start?.rows ?? state.done, 'row')}: ${outcomes}; journal ${journal}): nothing was sent. Its rows keep their bizTransferNo, so running it again would pay nobody`,
    {journal, startedAt: start?.at, counts: {...counts, processing: state.pending.size}, ...(state.resultsLost ? {resultsLost: state.resultsLost} : {})},
  )
}

/** Why a run cannot start, with the facts a command turns into the command line that goes on. */
function refusal(reason: 'unfinished' | 'other-unfinished' | 'already-run', message: string, details: Record<string, unknown>): UsageError {
  const error = new UsageError(message)
  error.details = {reason, ...details}
  return error
}
