// A run: the whole file checked, the journal consulted, the platform reached, then the rows
// streamed through with bounded concurrency, each journalled before and after its call.
import {renameSync} from 'node:fs'
import {merchantKey, type ClientConfig} from '../../client/pipeline.js'
import {InterruptedError, UsageError} from '../../errors.js'
import {derivedBizTransferNo, readRows, rowFields, validateBatch, type Plan, type RawRow, type RowProblem} from './file.js'
import {followPending} from './following.js'
import {applyResult, checkSamePlatform, openJournal, priorRun, tallyOf, type PriorRun, type RowResult, type Tally} from './journal.js'
import {writeResults} from './results.js'
import {Health, settleRow, type StopReason} from './settle.js'

/** How long in-flight rows may take to finish after an interruption. */
const DRAIN_MS = 10_000

export interface Summary extends Plan, Tally {
  /** Rows finished by an earlier run (resume, or a re-run of a finished file). */
  previouslyDone: number
  /** Why the run stopped before every row was sent. */
  stopped?: StopReason
  /** Rows never sent (the run stopped first). */
  notSent: number
  /** The journal of an earlier, finished file that was moved aside for this one. */
  archived?: string
}

export interface RunOptions {
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
  outFile?: string
  /** Follow processing rows until final for at most this long (0: do not wait). */
  waitMs?: number
  /** Aborted: stop sending, let the rows in flight finish (bounded), report. */
  signal?: AbortSignal
  onProblem: (problem: RowProblem) => void
  onStart?: (plan: Plan, previouslyDone: number, state: 'fresh' | 'resume' | 'done') => void
  onRow?: (result: RowResult) => void
  onWait?: (processing: number) => void
}

export async function runBatch(options: RunOptions): Promise<Summary> {
  const {file, signal} = options
  const {problems, ...plan} = await validateBatch(file, options.defaults, options.onProblem, signal)
  if (problems > 0) throw new UsageError(`${problems} problem${problems === 1 ? '' : 's'} in ${file}: nothing was sent`)
  const journal = `${file}.journal`
  const prior = await priorRun(journal, plan.fileSha256, options)
  stopIfInterrupted(signal)
  const client = await options.connect(plan, plan.rows - prior.state.done)
  stopIfInterrupted(signal)
  // keys missing would fail every row after its "sending" line: refuse before the journal
  merchantKey(client)
  if (client.verify && !client.platformKey) throw new UsageError('no platform public key to verify the answers with: set one in the profile, or pass --no-verify')
  checkSamePlatform(prior.state.start, client, journal)
  // every row of the earlier file has an outcome: keep its journal, out of the way
  if (prior.archiveTo) renameSync(journal, prior.archiveTo)
  // one keep-alive pool for the whole run: no row pays for a TCP (or TLS) handshake
  const [{Agent}, {Agent: HttpsAgent}] = await Promise.all([import('node:http'), import('node:https')])
  const agent = {http: new Agent({keepAlive: true}), https: new HttpsAgent({keepAlive: true})}
  try {
    return await sendBatch(options, plan, {...client, agent}, prior)
  } finally {
    agent.http.destroy()
    agent.https.destroy()
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
  if (fresh) log.write({type: 'start', fileSha256: plan.fileSha256, rows: plan.rows, mchNo: client.mchNo, baseUrl: client.baseUrl, outFile: options.outFile, at: new Date().toISOString()})
  const previouslyDone = previous.done
  options.onStart?.(plan, previouslyDone, fresh ? 'fresh' : previous.done >= plan.rows ? 'done' : 'resume')
  const state = previous
  const unknownRows: RowResult[] = []
  const inFlight = new Map<number, Omit<RowResult, 'outcome'>>()
  const health = new Health(options.signal)

  const sendRow = async (row: RawRow) => {
    const {fields} = rowFields(row.record, options.defaults)
    fields.bizTransferNo ??= derivedBizTransferNo(plan.fileSha256, row.index)
    const base = {index: row.index, line: row.line, bizTransferNo: String(fields.bizTransferNo), channel: String(fields.channel), amount: Number(fields.amount)}
    const mayHaveLanded = state.unresolved.has(row.index)
    if (!mayHaveLanded) log.write({type: 'sending', ...base})
    inFlight.set(row.index, base)
    const result: RowResult = {...base, ...(await settleRow(client, fields, mayHaveLanded, health))}
    inFlight.delete(row.index)
    if (result.outcome === 'unknown') unknownRows.push(result)
    else {
      log.write({type: 'result', ...result})
      applyResult(state, result)
    }
    options.onRow?.(result)
  }

  // Bounded concurrency over the streamed rows; nothing new starts once the run must stop.
  const running = new Set<Promise<void>>()
  let notSent = 0
  // A row that fails in a way no outcome covers (a bug) ends the run once the rows in flight
  // are done; it is kept here, not left as a rejection nobody awaits.
  let failure: {error: unknown} | undefined
  try {
    for await (const item of readRows(file)) {
      if (failure) break
      if (!('record' in item) || state.finished.has(item.index)) continue
      if (health.stopped) {
        if (!state.unresolved.has(item.index)) notSent++
        continue
      }
      const task = sendRow(item)
        .catch((error: unknown) => {
          failure ??= {error}
        })
        .finally(() => running.delete(task))
      running.add(task)
      if (running.size >= options.concurrency) await Promise.race([...running, health.halted])
    }
    if (health.stopped === 'interrupted') {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.all(running), new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))])
      clearTimeout(timer)
    } else await Promise.all(running)
    if (failure) throw failure.error
    // rows cut off in flight, or left unknown by an earlier run and not reached now, keep their
    // "sending" line: --resume looks them up
    const unknown = new Set(unknownRows.map((r) => r.index))
    for (const row of inFlight.values()) unknownRows.push({...row, outcome: 'unknown', message: 'cut off in flight: run again with --resume to settle this row'})
    for (const [index, entry] of state.unresolved) {
      if (!unknown.has(index) && !inFlight.has(index)) unknownRows.push({index, line: entry.line ?? 0, bizTransferNo: entry.bizTransferNo, channel: entry.channel ?? '', amount: entry.amount ?? 0, outcome: 'unknown', message: 'not settled: run again with --resume'})
    }
    if (!health.stopped && options.waitMs) await followPending(client, state, log, {deadline: Date.now() + options.waitMs, concurrency: options.concurrency, signal: options.signal, onWait: options.onWait})
  } finally {
    log.close()
  }
  const tally = tallyOf(state, journal, unknownRows, options.outFile)
  if (options.outFile) await writeResults(journal, unknownRows, options.outFile)
  return {...plan, ...tally, previouslyDone, stopped: health.stopped, notSent, archived}
}
