// A run: the ledger checked whole, its journal consulted, the platform reached, then the rows
// streamed through with bounded concurrency (each compared, journalled, then reported), then the
// other direction (the refunds of a window the ledger does not hold), then --out from the journal.
import type {ManagementConfig} from '../../client/management.js'
import type {ClientConfig} from '../../client/pipeline.js'
import {InterruptedError, LocalWriteError, PlatformError, TransportError, UsageError} from '../../errors.js'
import type {RefundRecord} from '../../protocol/answers.js'
import {toPlain} from '../../protocol/json.js'
import {counted} from '../../protocol/plural.js'
import {formatGmt8, parseGmt8} from '../../protocol/time.js'
import {checkKeys, withKeepAlive} from '../files/connection.js'
import {checkWritable, writeCsv} from '../files/csv-writer.js'
import {checkSamePlatform} from '../files/journal.js'
import {lockJournal} from '../files/lock.js'
import type {RowProblem} from '../files/reader.js'
import {Health, walkRows, type StopReason} from '../files/walk.js'
import {refundPages} from '../mch.js'
import {checkLedger, ledgerRows, type CheckedLedger, type LedgerPlan} from './check.js'
import {compareRow, type Compared, type Difference, type Platform} from './compare.js'
import {apply, differencesIn, openJournal, priorRun, type JournalState, type ReconcileLog, type Tally, type Window} from './journal.js'
import {refundKey, rowKey, type LedgerRow} from './ledger.js'

/** How long rows in flight may take to finish after an interruption. */
const DRAIN_MS = 10_000
/** Records a page of the other direction asks for. */
const WINDOW_PAGE = 500

/** The columns of the --out CSV (named in the command's help). */
export const DIFFERENCE_COLUMNS = ['line', 'kind', 'number', 'platformNo', 'difference', 'ledger', 'platform', 'ledgerCents', 'platformCents', 'code', 'message'] as const

export interface Summary extends Tally {
  ledger: string
  plan: LedgerPlan
  /** Rows compared, by this run and earlier ones. */
  compared: number
  /** Of them, by an earlier run (--resume). */
  previouslyDone: number
  /** Rows this run could not compare: the platform did not answer (--resume asks them again). */
  notCompared: number
  /** Why the run stopped before every row was compared. */
  stopped?: StopReason
  window?: Window & {listed: boolean}
  journal: string
  outFile?: string
}

interface RunOptions {
  ledger: string
  /** The ledger as the user named it, for messages. */
  name: string
  journal: string
  outFile?: string
  concurrency: number
  resume: boolean
  window?: Window
  /** Whether the profile has a management session: asked before anything, when the ledger or the window needs one. */
  hasSession: () => boolean
  /** The platform, asked for once the ledger is valid (a refused ledger reaches nothing, not even a local sandbox). */
  connect: (management: boolean) => Promise<{client: ClientConfig; management?: ManagementConfig}>
  signal?: AbortSignal
  onProblem: (problem: RowProblem) => void
  onNotice?: (message: string) => void
  onStart?: (plan: LedgerPlan, previouslyDone: number) => void
  /** A row done: compared, or not. */
  onRow?: () => void
  /** A difference as found, once it is journalled. */
  onDifference?: (difference: Difference) => void
}

/** The documented exit code: 4 the platform did not answer for every row, 3 an answer did not verify, 5 a difference, else 0. */
export function reconcileExitCode(summary: Summary): number {
  if (summary.stopped === 'unreachable' || summary.notCompared > 0) return 4
  if (summary.classes.unverified.rows > 0) return 3
  return Object.values(summary.classes).some((sum) => sum.rows > 0) ? 5 : 0
}

/** The window of the other direction, checked: both ends GMT+8 times, the start not after the end. */
export function checkWindow(start: string | undefined, end: string | undefined): Window | undefined {
  if (start === undefined || end === undefined) return undefined
  const problems = [['createTimeStart', start], ['createTimeEnd', end]].filter(([, value]) => !parseGmt8(value)).map(([field]) => ({field, message: 'must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'}))
  if (problems.length) throw new UsageError('invalid input', problems)
  if (parseGmt8(start)!.getTime() > parseGmt8(end)!.getTime()) throw new UsageError('invalid input', [{field: 'createTimeEnd', message: `must not be before --create-time-start (${start})`}])
  return {start, end}
}

/** The whole ledger checked (a dry run): refused on any problem; nothing is asked. */
export async function checkOnly(ledger: string, name: string, onProblem: (problem: RowProblem) => void): Promise<LedgerPlan> {
  const {plan, problems} = await checkLedger(ledger, onProblem)
  if (problems > 0) throw new UsageError(`${counted(problems, 'problem')} in ${name}: nothing would be asked`)
  return plan
}

export async function reconcile(options: RunOptions): Promise<Summary> {
  const {ledger, journal, signal} = options
  const checked = await checkLedger(ledger, options.onProblem, signal)
  if (checked.problems > 0) throw new UsageError(`${counted(checked.problems, 'problem')} in ${options.name}: nothing was asked`)
  const {plan} = checked
  if (plan.ignoredColumns.length) options.onNotice?.(`ignored (not the ledger's): ${plan.ignoredColumns.join(', ')}`)
  const management = plan.refundedRows > 0 || options.window !== undefined
  if (management && !options.hasSession()) {
    const why = plan.refundedRows > 0 ? `${counted(plan.refundedRows, 'payment')} of ${options.name} ${plan.refundedRows === 1 ? 'gives' : 'give'} refunded, which is compared` : '--create-time-start and --create-time-end list refunds'
    throw new UsageError(`${why} through the management API, and this profile has no session: log in first (unipay mch login --account ACCOUNT); nothing was asked`)
  }
  // every file the run writes, before anything is asked: none of them may be one it keeps
  const ledgerFile = {path: ledger, what: 'the ledger'}
  checkWritable(journal === `${ledger}.reconcile-journal` ? `the journal ${journal}` : '--journal', journal, [ledgerFile])
  if (options.outFile) checkWritable('--out', options.outFile, [ledgerFile, {path: journal, what: 'its journal'}, {path: `${journal}.lock`, what: "its journal's lock"}])
  const lock = await lockJournal(journal, 'reconcile')
  try {
    if (lock.tookOver) options.onNotice?.(lock.tookOver)
    const prior = await priorRun(journal, plan.fileSha256, {ledger: options.name, resume: options.resume, window: options.window})
    if (prior.note) options.onNotice?.(prior.note)
    stopIfInterrupted(signal)
    // refund rows that give their bizOrderNo tell a refund number several orders hold apart
    // through the management API: used whenever a session is there, needed only as above
    const helpful = !management && plan.byKind.refund.rows > 0 && options.hasSession()
    const connected = await options.connect(management || helpful)
    stopIfInterrupted(signal)
    checkKeys(connected.client)
    checkSamePlatform(prior.state.start, connected.client, journal, 'the reconciliation')
    // a session that has ended shows now, before any row is asked (the call refuses it: exit 1)
    if (connected.management && management) await refundPages(connected.management, {}, 1).next()
    else if (connected.management) {
      try {
        await refundPages(connected.management, {}, 1).next()
      } catch (error) {
        if (!(error instanceof PlatformError || error instanceof TransportError)) throw error
        options.onNotice?.(`the management API did not answer the session (${error.message}): a refund number several orders hold stays ambiguous; unipay mch login tells them apart`)
        connected.management = undefined
      }
    }
    return await withKeepAlive(connected.client, (client) => walk(options, checked, {client, management: connected.management}, prior.state))
  } finally {
    lock.release()
  }
}

/** Interrupted before the journal is opened: nothing was asked. */
function stopIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new InterruptedError(signal.reason, 'interrupted before anything was asked')
}

async function walk(options: RunOptions, checked: CheckedLedger, connected: Omit<Platform, 'health'>, state: JournalState): Promise<Summary> {
  const {plan} = checked
  const log = openJournal(options.journal)
  if (!state.start) {
    state.start = {type: 'start', job: 'reconcile', fileSha256: plan.fileSha256, rows: plan.rows, mchNo: connected.client.mchNo, baseUrl: connected.client.baseUrl, at: new Date().toISOString(), window: options.window}
    log.write(state.start)
  }
  const previouslyDone = state.done
  options.onStart?.(plan, previouslyDone)
  const health = new Health(options.signal)
  const platform: Platform = {...connected, health}
  // rows still in flight when the drain gave up on them end after the journal is closed: they are
  // neither recorded nor reported (a difference is reported only once it is on disk), and asked again by --resume
  let closed = false
  const record = (outcome: Compared, index: number) => {
    if (closed) return
    if ('matched' in outcome) {
      // a match a kill may lose is only asked again
      const entry = {type: 'match' as const, index, cents: outcome.cents}
      log.later(entry)
      apply(state, entry)
    } else if ('difference' in outcome) {
      // on disk before it is reported: a row reported is never asked again
      const entry = {type: 'difference' as const, index, ...outcome.difference}
      log.write(entry)
      apply(state, entry)
      options.onDifference?.(outcome.difference)
    }
    options.onRow?.()
  }
  const firstLines = new Map<string, number>()
  /** The rows left to compare; the first of a number the ledger holds twice is compared, the others are its duplicates. */
  async function* toCompare() {
    for await (const batch of ledgerRows(options.ledger)) {
      const rows: {row: LedgerRow; firstLine?: number}[] = []
      for (const row of batch) {
        const key = checked.repeatedKeys.has(rowKey(row)) ? rowKey(row) : undefined
        const firstLine = key === undefined ? undefined : firstLines.get(key)
        if (key !== undefined && firstLine === undefined) firstLines.set(key, row.line)
        if (!state.finished.has(row.index)) rows.push({row, firstLine})
      }
      yield rows
    }
  }
  let stopped: StopReason | undefined
  try {
    await walkRows(toCompare(), {
      concurrency: options.concurrency,
      health,
      work: async ({row, firstLine}) => {
        if (firstLine === undefined) return record(await compareRow(platform, row), row.index)
        const message = `the same ${row.kind === 'pay' ? 'payment' : row.kind} as line ${firstLine}`
        record({difference: {line: row.line, kind: row.kind, number: row.number, difference: 'duplicate in ledger', ledger: String(row.amount), ledgerCents: row.amount, platformCents: 0, message}}, row.index)
      },
      drainMs: DRAIN_MS,
    })
    log.flush()
    stopped = health.stopped
    if (!stopped && options.window && !state.windowDone && connected.management) stopped = await listWindow(options, checked, connected.management, state, log)
  } finally {
    closed = true
    log.close()
  }
  if (options.outFile) {
    try {
      await writeCsv(options.outFile, [...DIFFERENCE_COLUMNS], differencesIn(options.journal))
    } catch (error) {
      // only what the disk refused: anything else is not a write's failure
      if (!(error as NodeJS.ErrnoException).code) throw error
      throw new LocalWriteError(options.outFile, error, `every difference is in the journal ${options.journal}: run again with --resume to write it, nothing is asked again`)
    }
  }
  const window = options.window ? {...options.window, listed: state.windowDone} : undefined
  return {ledger: options.ledger, plan, ...state.tally, compared: state.done, previouslyDone, notCompared: plan.rows - state.done, stopped, window, journal: options.journal, outFile: options.outFile}
}

/** The management API's ISO 8601 time as every other time on screen (GMT+8), or as it came. */
function shownTime(iso: string | undefined): string {
  const at = new Date(iso ?? '')
  return Number.isNaN(at.getTime()) ? (iso ?? '') : formatGmt8(at)
}

/**
 * The other direction: every refund the platform created in the window, page by page, and those
 * whose number the ledger does not hold reported as `missing in ledger`. Returns why it stopped
 * early, if it did.
 */
async function listWindow(options: RunOptions, checked: CheckedLedger, management: ManagementConfig, state: JournalState, log: ReconcileLog): Promise<StopReason | undefined> {
  const {start, end} = options.window!
  try {
    for await (const page of refundPages(management, {createTimeStart: start, createTimeEnd: end}, WINDOW_PAGE)) {
      for (const record of page.records.map((r) => toPlain(r) as RefundRecord)) {
        const bizRefundNo = String(record.bizRefundNo ?? '')
        const bizOrderNo = String(record.bizOrderNo ?? '')
        const refundNo = String(record.refundNo ?? '')
        if (checked.numbers.has(refundKey(bizOrderNo, bizRefundNo)) || checked.numbers.has(refundKey(undefined, bizRefundNo)) || state.missingReported.has(refundNo)) continue
        const cents = Number(String(record.amount ?? ''))
        const difference: Difference = {
          kind: 'refund',
          number: bizRefundNo,
          platformNo: refundNo,
          difference: 'missing in ledger',
          platform: String(cents),
          ledgerCents: 0,
          platformCents: Number.isSafeInteger(cents) ? cents : 0,
          message: `the ledger has no refund ${bizRefundNo} of order ${bizOrderNo} (${String(record.status ?? '')}, created ${shownTime(record.createTime)})`,
        }
        log.write({type: 'difference', ...difference})
        apply(state, {type: 'difference', ...difference})
        options.onDifference?.(difference)
      }
      if (options.signal?.aborted) return 'interrupted'
    }
  } catch (error) {
    if (error instanceof TransportError) return 'unreachable'
    throw error
  }
  log.write({type: 'window'})
  state.windowDone = true
  return undefined
}
