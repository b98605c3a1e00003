// The reconciliation's own journal (LEDGER.reconcile-journal, or --journal PATH; 0600, never the
// name `transfer batch` gives its journal): "start" once, a line for each row compared (a match,
// or its difference) and for each refund only the platform holds, and "window" once the other
// direction is listed to its end. Read back, it says which rows are done, so an interrupted run
// resumes without asking them again, and it holds every difference: the summary, --json and
// --out are written from it, and nothing is kept in memory per row.
import {closeSync, existsSync, openSync, readSync, rmSync} from 'node:fs'
import {UsageError} from '../../errors.js'
import {counted} from '../../protocol/plural.js'
import {openAppendLog, readAppendLog, type AppendLog} from '../files/append-log.js'
import {FinishedRows} from '../files/journal.js'
import {DIFFERENCE_CLASSES, type Difference, type DifferenceClass} from './compare.js'

/** The other direction's window: refunds created from `start` to `end` (GMT+8, both included). */
export interface Window {
  start: string
  end: string
}

interface StartEntry {
  type: 'start'
  /** What tells this journal from any other file (a batch's journal has a start line too). */
  job: 'reconcile'
  fileSha256: string
  rows: number
  mchNo?: string
  baseUrl: string
  at: string
  window?: Window
}
type MatchEntry = {type: 'match'; index: number; cents: number}
type DifferenceEntry = {type: 'difference'; index?: number} & Difference
type JournalEntry = StartEntry | MatchEntry | DifferenceEntry | {type: 'window'}
export type ReconcileLog = AppendLog<JournalEntry>

/** Rows and money by outcome: the summary's numbers. */
export interface Tally {
  matched: {rows: number; cents: number}
  classes: Record<DifferenceClass, {rows: number; ledgerCents: number; platformCents: number}>
}

export interface JournalState {
  start?: StartEntry
  finished: FinishedRows
  /** Rows compared (matched or differing). */
  done: number
  tally: Tally
  /** The platform numbers of refunds reported missing in the ledger: a listing resumed, or shifted by a new refund, names each once. */
  missingReported: Set<string>
  /** The other direction was listed to its end. */
  windowDone: boolean
}

function emptyState(): JournalState {
  const classes = Object.fromEntries(DIFFERENCE_CLASSES.map((name) => [name, {rows: 0, ledgerCents: 0, platformCents: 0}])) as Tally['classes']
  return {finished: new FinishedRows(), done: 0, tally: {matched: {rows: 0, cents: 0}, classes}, missingReported: new Set(), windowDone: false}
}

/** An entry's effect on the state (read back, or written by this run). */
export function apply(state: JournalState, entry: JournalEntry): void {
  if (entry.type === 'start') state.start = entry
  else if (entry.type === 'window') state.windowDone = true
  else if (entry.type === 'match' || entry.index !== undefined) {
    if (state.finished.has(entry.index!)) return
    state.finished.add(entry.index!)
    state.done++
    if (entry.type === 'match') {
      state.tally.matched.rows++
      state.tally.matched.cents += entry.cents
    } else count(state.tally, entry)
  } else if (entry.platformNo === undefined || !state.missingReported.has(entry.platformNo)) {
    if (entry.platformNo !== undefined) state.missingReported.add(entry.platformNo)
    count(state.tally, entry)
  }
}

function count(tally: Tally, difference: Difference): void {
  const sum = tally.classes[difference.difference]
  sum.rows++
  sum.ledgerCents += difference.ledgerCents
  sum.platformCents += difference.platformCents
}

/** An entry this journal writes: anything else (another tool's JSON lines) is not a reconciliation's. */
function isEntry(entry: unknown): entry is JournalEntry {
  if (typeof entry !== 'object' || entry === null) return false
  const {type, index, difference} = entry as {type?: unknown; index?: unknown; difference?: unknown}
  if (type === 'start' || type === 'window') return true
  if (type === 'match') return typeof index === 'number'
  return type === 'difference' && (DIFFERENCE_CLASSES as readonly unknown[]).includes(difference)
}

async function readJournal(journal: string): Promise<JournalState | undefined> {
  const state = emptyState()
  for await (const entry of readAppendLog<unknown>(journal)) {
    if (!isEntry(entry)) return undefined
    apply(state, entry)
  }
  return state
}

/** Whether a file holds a whole line (a start line a kill cut off holds none). */
function holdsALine(path: string): boolean {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).includes(0x0a)
  } finally {
    closeSync(fd)
  }
}

/** Every difference the journal holds, in the order found. */
export async function* differencesIn(journal: string): AsyncGenerator<Difference> {
  for await (const entry of readAppendLog<JournalEntry>(journal)) {
    if (entry.type !== 'difference') continue
    // in the order of the --out columns, whatever order the entry was written in
    const {line, kind, number, platformNo, difference, ledger, platform, ledgerCents, platformCents, code, message} = entry
    yield {line, kind, number, platformNo, difference, ledger, platform, ledgerCents, platformCents, code, message}
  }
}

export const openJournal = (journal: string): ReconcileLog => openAppendLog<JournalEntry>(journal, 'asking stopped, as every row compared must be recorded first')

/** Whether a run's journal has every row and, when it lists a window, the window's end. */
const finishedRun = (state: JournalState): boolean => state.start !== undefined && state.done >= state.start.rows && (!state.start.window || state.windowDone)

const sameWindow = (a?: Window, b?: Window) => a?.start === b?.start && a?.end === b?.end

/**
 * What an earlier run left, decided before the platform is reached. Reading moves no money, so a
 * run starts afresh unless --resume continues one of this very ledger (and window); a journal
 * that is not a reconciliation's is never overwritten. `note`: what the user should know.
 */
export async function priorRun(journal: string, fileSha256: string, options: {ledger: string; resume: boolean; window?: Window}): Promise<{state: JournalState; note?: string}> {
  if (!existsSync(journal)) return {state: emptyState()}
  const read = await readJournal(journal)
  const start = read?.start
  if (!read || start?.job !== 'reconcile') {
    // anything with a whole line in it is someone's file: only a start line cut off is cleared
    if (!read || start || read.done > 0 || holdsALine(journal)) throw new UsageError(`${journal} is not a reconciliation's journal: it is left as it is; give another --journal`)
    // an empty journal, or one whose start line a kill cut off: nothing was compared
    rmSync(journal, {force: true})
    return {state: emptyState()}
  }
  const ours = start.fileSha256 === fileSha256
  if (options.resume && ours) {
    if (!sameWindow(start.window, options.window)) {
      const given = (w?: Window) => (w ? `--create-time-start "${w.start}" --create-time-end "${w.end}"` : 'no window')
      throw new UsageError(`${journal} was started with ${given(start.window)}, not ${given(options.window)}: resume it with the same, or run without --resume to start afresh`)
    }
    return {state: read}
  }
  rmSync(journal, {force: true})
  if (options.resume) return {state: emptyState(), note: `${journal} records a run of other content (sha256 ${start.fileSha256.slice(0, 12)}): ${options.ledger} starts afresh`}
  if (ours && !finishedRun(read)) {
    return {state: emptyState(), note: `the unfinished run of ${options.ledger} (${read.done} of ${counted(start.rows, 'row')} compared) starts afresh; --resume would have continued it`}
  }
  return {state: emptyState()}
}
