// A run: the whole file checked, the journal consulted, the platform reached, then the rows
// streamed through with bounded concurrency, each journalled before and after its call.
import {randomBytes} from 'node:crypto'
import {renameSync} from 'node:fs'
import type {ClientConfig} from '../../client/pipeline.js'
import {InterruptedError, UsageError} from '../../errors.js'
import {counted} from '../../protocol/plural.js'
import {checkKeys, withKeepAlive} from '../files/connection.js'
import {checkSamePlatform} from '../files/journal.js'
import {lockJournal} from '../files/lock.js'
import {checkReadable, readRows, type FileRow} from '../files/reader.js'
import {Health, walkRows, type StopReason} from '../files/walk.js'
import {derivedBizTransferNo, rowFields, validateBatch, type Plan, type RowProblem} from './file.js'
import {followPending} from './following.js'
import {applyResult, checkRunFiles, openJournal, priorRun, tallyOf, type PriorRun, type RowReport, type RowResult, type Tally, type UnsentRow} from './journal.js'
import {writeResults} from './results.js'
import {settleRow} from './settle.js'

/** How long in-flight rows may take to finish after an interruption. */
const DRAIN_MS = 10_000

export interface Summary extends Plan, Tally {
  /** Rows finished by an earlier run (resume, or a re-run of a finished file). */
  previouslyDone: number
  /** Why the run stopped before every row was sent. */
  stopped?: StopReason
  /** Rows never sent (the run stopped first). */
  notSent: number
  /** The journal of an earlier, finished run that was moved aside for this one. */
  archived?: string
  /** A run paying a finished file again (--again): the id its rows' numbers derive from. */
  runId?: string
}

interface RunOptions {
  file: string
  defaults: Record<string, unknown>
  /**
   * The platform to send to, asked for once the file is valid and its journal allows the run (so
   * a refused file reaches nothing, not even a local sandbox); `left` rows have no result yet from
   * an earlier run (0: nothing will be sent).
   */
  connect: (plan: Plan, left: number) => Promise<ClientConfig>
  concurrency: number
  resume: boolean
  /** Pay a file a finished run has paid, again: every row gets a new bizTransferNo. */
  again?: boolean
  outFile?: string
  /** The run's own flags, recorded in the journal for the command that finishes it. */
  flags?: string[]
  /** Follow processing rows until final for at most this long (0: do not wait). */
  waitMs?: number
  /** Aborted: stop sending, let the rows in flight finish (bounded), report. */
  signal?: AbortSignal
  onProblem: (problem: RowProblem) => void
  /** Something the user should know that is no problem (a lock taken over from a process that is gone). */
  onNotice?: (message: string) => void
  onStart?: (plan: Plan, previouslyDone: number, state: 'fresh' | 'resume' | 'done') => void
  /**
   * Each row of this run, once: as it is settled or not sent; with --wait, a row left processing
   * once it is final, or with its state when the wait ends.
   */
  onRow?: (result: RowReport) => void
  /** A row of this run has its outcome from the sending (processing included): for a progress bar. */
  onSent?: () => void
  onWait?: (processing: number) => void
}

export async function runBatch(options: RunOptions): Promise<Summary> {
  const {file, signal} = options
  checkReadable(file)
  checkRunFiles(file, options.outFile)
  const {problems, keyed, ...plan} = await validateBatch(file, options.defaults, options.onProblem, signal)
  if (problems > 0) throw new UsageError(`${counted(problems, 'problem')} in ${file}: nothing was sent`)
  if (options.again && keyed > 0) {
    throw new UsageError(`--again gives every row a new bizTransferNo, but ${counted(keyed, 'row')} of ${file} give their own: give those rows new numbers in the file instead; nothing was sent`)
  }
  const journal = `${file}.journal`
  const lock = await lockJournal(journal, 'transfer batch')
  try {
    if (lock.tookOver) options.onNotice?.(lock.tookOver)
    const prior = await priorRun(journal, plan.fileSha256, options)
    stopIfInterrupted(signal)
    const client = await options.connect(plan, plan.rows - prior.state.done)
    stopIfInterrupted(signal)
    // keys missing would fail every row after its "sending" line: refuse before the journal
    checkKeys(client)
    checkSamePlatform(prior.state.start, client, journal, 'the batch')
    // the earlier run's rows all have an outcome: keep its journal, out of the way
    if (prior.archiveTo) renameSync(journal, prior.archiveTo)
    return await withKeepAlive(client, (pooled) => sendBatch(options, plan, pooled, prior))
  } finally {
    lock.release()
  }
}

/** Interrupted before the journal is opened: nothing was sent and nothing is left to resume. */
function stopIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new InterruptedError(signal.reason, 'interrupted before anything was sent; no journal was written')
}

async function sendBatch(options: RunOptions, plan: Plan, client: ClientConfig, {state: previous, archiveTo: archived}: PriorRun): Promise<Summary> {
  const {file} = options
  const journal = `${file}.journal`
  const log = openJournal(journal)
  // a journal with its start line is an earlier run of this file, even one killed before its first send
  const fresh = previous.start === undefined && previous.done === 0 && previous.unresolved.size === 0
  // paying again: a new id, recorded before the first send, that --resume reads back
  const runId = fresh ? (options.again ? randomBytes(8).toString('hex') : undefined) : previous.start?.runId
  const state = previous
  if (fresh) {
    state.start = {type: 'start', fileSha256: plan.fileSha256, rows: plan.rows, mchNo: client.mchNo, baseUrl: client.baseUrl, outFile: options.outFile, at: new Date().toISOString(), runId, flags: options.flags, defaults: options.defaults}
    log.write(state.start)
  }
  const previouslyDone = previous.done
  options.onStart?.(plan, previouslyDone, fresh ? 'fresh' : previous.done >= plan.rows ? 'done' : 'resume')
  const unknownRows: RowResult[] = []
  const inFlight = new Map<number, Omit<RowResult, 'outcome'>>()
  const health = new Health(options.signal)

  /** A row's number, payee and amount as this run sends it. */
  const rowBase = (row: FileRow) => {
    const {fields} = rowFields(row.record, options.defaults)
    fields.bizTransferNo ??= derivedBizTransferNo(plan.fileSha256, row.index, runId)
    return {fields, base: {index: row.index, line: row.line, bizTransferNo: String(fields.bizTransferNo), channel: String(fields.channel), amount: Number(fields.amount)}}
  }
  let notSent = 0
  const unsent = (row: UnsentRow) => {
    notSent++
    options.onSent?.()
    options.onRow?.(row)
  }
  /** Rows of this run left processing, whose line waits for the end of --wait. */
  const followed = new Set<number>()
  const report = (result: RowResult) => {
    options.onSent?.()
    if (result.outcome === 'processing' && options.waitMs) followed.add(result.index)
    else options.onRow?.(result)
  }

  const sendRow = async (row: FileRow) => {
    const {fields, base} = rowBase(row)
    const mayHaveLanded = state.unresolved.has(row.index)
    if (!mayHaveLanded) log.write({type: 'sending', ...base})
    inFlight.set(row.index, base)
    const settled = await settleRow(client, fields, mayHaveLanded, health)
    inFlight.delete(row.index)
    if (settled.outcome === 'not sent') {
      // its "sending" line is answered: nothing to look up, --resume sends it
      const report: UnsentRow = {...base, ...settled}
      log.later({type: 'unsent', ...report})
      return unsent(report)
    }
    const result: RowResult = {...base, ...settled}
    if (result.outcome === 'unknown') unknownRows.push(result)
    else {
      // a lost success or processing line is looked up on --resume; a failure (perhaps a row
      // another run paid) is not left to a look-up that would take that payment for this row's
      if (result.outcome === 'fail') log.write({type: 'result', ...result})
      else log.later({type: 'result', ...result})
      applyResult(state, result)
    }
    report(result)
  }

  /** The rows this run has to send: those with no result yet. */
  async function* toSend() {
    for await (const batch of readRows(file)) yield batch.filter((item): item is FileRow => 'record' in item && !state.finished.has(item.index))
  }
  try {
    await walkRows(toSend(), {
      concurrency: options.concurrency,
      health,
      work: sendRow,
      // reached once the run had to stop: not sent (rows an earlier run sent stay unknown, below)
      skipped: (row) => {
        if (!state.unresolved.has(row.index)) unsent({...rowBase(row).base, outcome: 'not sent', message: `not sent: the run stopped (${health.stopped === 'interrupted' ? 'interrupted' : 'the platform could not be reached'}) before this row`})
      },
      drainMs: DRAIN_MS,
    })
    // every result on disk before a wait that may take hours
    log.flush()
    // rows cut off in flight, or left unknown by an earlier run and not reached now, keep their
    // "sending" line: --resume looks them up
    const unknown = new Set(unknownRows.map((r) => r.index))
    for (const row of inFlight.values()) unknownRows.push({...row, outcome: 'unknown', message: 'cut off in flight: outcome unknown'})
    for (const [index, entry] of state.unresolved) {
      if (!unknown.has(index) && !inFlight.has(index)) {
        unknownRows.push({index, line: entry.line ?? 0, bizTransferNo: entry.bizTransferNo, channel: entry.channel ?? '', amount: entry.amount ?? 0, outcome: 'unknown', message: 'sent by an earlier run, outcome unknown: not looked up by this one'})
      }
    }
    if (!health.stopped && options.waitMs) {
      const onSettled = (result: RowResult) => {
        if (followed.delete(result.index)) options.onRow?.(result)
      }
      await followPending(client, state, log, {deadline: Date.now() + options.waitMs, concurrency: options.concurrency, signal: options.signal, onWait: options.onWait, onSettled})
    }
    // rows still processing when the wait ends (or the run stopped first): their state now
    for (const index of followed) {
      const row = state.pending.get(index)
      if (row) options.onRow?.(row)
    }
  } finally {
    log.close()
  }
  const tally = tallyOf(state, journal, unknownRows, options.outFile)
  const unwritten = options.outFile ? await writeResults(journal, tally.rows, unknownRows, options.outFile, {file, defaults: options.defaults, fileSha256: plan.fileSha256, runId}) : undefined
  return {...plan, ...tally, previouslyDone, stopped: health.stopped, notSent, archived, ...(runId ? {runId} : {}), ...(unwritten ? {unwritten} : {})}
}
