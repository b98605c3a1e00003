// Batch transfers from a CSV (with a header) or JSON-lines file, for unattended jobs:
// - every row is validated before anything is sent (all bad rows reported, by line; header
//   problems once, on line 1);
// - each row's bizTransferNo is fixed before the first send (a column, or derived from the
//   file's hash and the row index), so a resend can never pay twice;
// - a journal beside the file records "sending" before each call and the outcome after, so a
//   run killed at any moment resumes: rows whose outcome is unknown are queried, not resent;
//   a finished journal of other file content is archived, so a new file starts fresh;
// - rows left processing are followed (--wait) or re-queried later (status) until final;
// - rows stream through with bounded concurrency, so memory stays flat for any file size.
import {createHash} from 'node:crypto'
import {accessSync, closeSync, constants, createReadStream, createWriteStream, existsSync, openSync, readSync, renameSync, statSync, writeSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {merchantKey, type ClientConfig} from '../client/pipeline.js'
import {InterruptedError, PlatformError, SignatureError, TransportError, UsageError} from '../errors.js'
import {MoneyFormatError, yuanToCents} from '../protocol/money.js'
import {checkFields, transferRowFields} from '../protocol/schemas.js'
import {createTransfer, queryTransfer} from './transfer.js'

const COLUMNS = ['channel', 'channelMchNo', 'bizTransferNo', 'amount', 'yuan', 'title', 'reason', 'payeeType', 'payeeAccount', 'payeeName', 'attach', 'notifyUrl', 'transferScene', 'reportInfos']
/** Fields every row needs, from a column or a flag default (amount may come as yuan). */
const REQUIRED_COLUMNS = ['channel', 'channelMchNo', 'payeeType', 'payeeAccount', 'amount']
/** The columns of the --out result CSV (named in the command's help). */
export const RESULT_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'outcome', 'transferNo', 'code', 'message']
/** The columns of the --dry-run plan CSV. */
export const PLAN_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'payee']
const SEND_ATTEMPTS = 3
/** Consecutive transport failures, with no answer between them, that mean the platform is down. */
const UNREACHABLE_AFTER = 5
/** How long in-flight rows may take to finish after an interruption. */
const DRAIN_MS = 10_000

export interface RowProblem {
  line: number
  field?: string
  message: string
}

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

export interface Plan {
  rows: number
  totalCents: number
  byChannel: Record<string, {rows: number; cents: number}>
  fileSha256: string
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

export interface Summary extends Plan, Tally {
  /** Rows finished by an earlier run (resume, or a re-run of a finished file). */
  previouslyDone: number
  /** Why the run stopped before every row was sent. */
  stopped?: 'unreachable' | 'interrupted'
  /** Rows never sent (the run stopped first). */
  notSent: number
  /** The journal of an earlier, finished file that was moved aside for this one. */
  archived?: string
}

/** The documented exit code of a batch: 0 all succeeded, 4 unreachable, 5 some failed, 6 some still processing. */
export function batchExitCode(tally: Tally & {stopped?: Summary['stopped']; notSent?: number}): number {
  if (tally.stopped === 'unreachable') return 4
  if (tally.counts.fail + tally.counts.unknown + (tally.notSent ?? 0) > 0) return 5
  if (tally.counts.processing > 0) return 6
  return 0
}

interface RawRow {
  index: number
  line: number
  record: Record<string, unknown>
}

interface Header {
  delimiter: string
  columns: string[]
}

/** The CSV header line, and the separator it uses (comma, else semicolon or tab). */
function readHeader(file: string): Header {
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    const text = buffer.subarray(0, length).toString('utf8').replace(/^\uFEFF/, '')
    const line = text.split(/\r?\n/, 1)[0]
    const count = (c: string) => line.split(c).length - 1
    const delimiter = count(',') > 0 ? ',' : count(';') >= count('\t') && count(';') > 0 ? ';' : count('\t') > 0 ? '\t' : ','
    return {delimiter, columns: line.split(delimiter).map((c) => c.trim().replace(/^"(.*)"$/, '$1'))}
  } finally {
    closeSync(fd)
  }
}

const isJsonLines = (file: string) => /\.(jsonl|ndjson)$/i.test(file)

/** Rows of the file with their line numbers; the file's SHA-256 once fully read. */
async function* readRows(file: string, hash?: ReturnType<typeof createHash>): AsyncGenerator<RawRow | RowProblem> {
  const {parse} = await import('csv-parse')
  // Set up every consumer in the same tick: a 'data' listener starts the flow at once.
  const stream = createReadStream(file)
  if (hash) stream.on('data', (chunk) => hash.update(chunk))
  let index = 0
  if (isJsonLines(file)) {
    let line = 0
    for await (const text of createInterface({input: stream, crlfDelay: Infinity})) {
      line++
      if (!text.trim()) continue
      let record: unknown
      try {
        record = JSON.parse(text)
      } catch (error) {
        yield {line, message: `not JSON: ${(error as Error).message}`}
        continue
      }
      if (record === null || typeof record !== 'object' || Array.isArray(record)) yield {line, message: 'not a JSON object'}
      else yield {index: index++, line, record: record as Record<string, unknown>}
    }
    return
  }
  const {delimiter} = readHeader(file)
  const parser = stream.pipe(parse({columns: true, delimiter, skip_empty_lines: true, trim: true, bom: true, info: true}))
  try {
    for await (const {record, info} of parser as AsyncIterable<{record: Record<string, string>; info: {lines: number}}>) {
      yield {index: index++, line: info.lines, record}
    }
  } catch (error) {
    const lines = (error as {lines?: number}).lines
    yield {line: lines ?? 0, message: `not valid CSV: ${(error as Error).message}`}
  }
}

/** Edit distance, for "did you mean" on a misspelled column. */
function distance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]
}

function unknownColumn(column: string): string {
  let best = ''
  let bestDistance = Infinity
  for (const known of COLUMNS) {
    const d = distance(column.toLowerCase(), known.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [known, d]
  }
  const near = bestDistance <= Math.max(2, Math.floor(best.length / 3))
  return near ? `unknown column: did you mean ${best}?` : `unknown column (columns: ${COLUMNS.join(', ')})`
}

/** Problems of the header, reported once on line 1; the fields they cover are not reported per row. */
function headerProblems(header: Header, defaults: Record<string, unknown>): {problems: RowProblem[]; fields: Set<string>} {
  const problems: RowProblem[] = []
  const fields = new Set<string>()
  const {columns} = header
  if (columns.length === 1 && columns[0] === '') return {problems, fields} // an empty file: "no rows" says it
  if (columns.length === 1 && !COLUMNS.includes(columns[0]) && /[^A-Za-z0-9_]/.test(columns[0])) {
    problems.push({line: 1, message: `the header has a single column "${columns[0]}": the file is not comma-separated (use commas; semicolons and tabs are also recognised)`})
    for (const field of [...COLUMNS, columns[0]]) fields.add(field)
    return {problems, fields}
  }
  for (const column of columns) {
    if (COLUMNS.includes(column)) continue
    problems.push({line: 1, field: column, message: unknownColumn(column)})
    fields.add(column)
  }
  for (const field of REQUIRED_COLUMNS) {
    const given = columns.includes(field) || (field === 'amount' && columns.includes('yuan')) || defaults[field] !== undefined
    if (given) continue
    const flag = {channel: ' (or --channel)', channelMchNo: ' (or --channel-mch-no)'}[field] ?? ''
    problems.push({line: 1, field, message: `no ${field === 'amount' ? 'amount (or yuan)' : field} column${flag}: every row needs one`})
    fields.add(field)
  }
  return {problems, fields}
}

/** A row's transfer fields: columns, flag defaults, amount from cents or yuan. */
function rowFields(record: Record<string, unknown>, defaults: Record<string, unknown>): {fields: Record<string, unknown>; problems: Omit<RowProblem, 'line'>[]} {
  const problems: Omit<RowProblem, 'line'>[] = []
  const fields: Record<string, unknown> = {}
  for (const [column, raw] of Object.entries(record)) {
    if (!COLUMNS.includes(column)) {
      problems.push({field: column, message: unknownColumn(column)})
      continue
    }
    const value = typeof raw === 'string' ? raw.trim() : raw
    if (value !== '' && value !== null && value !== undefined) fields[column] = value
  }
  for (const [key, value] of Object.entries(defaults)) if (fields[key] === undefined && value !== undefined) fields[key] = value
  if (fields.amount !== undefined && fields.yuan !== undefined) problems.push({field: 'amount', message: 'give amount (cents) or yuan, not both'})
  else if (fields.yuan !== undefined) {
    try {
      fields.amount = yuanToCents(String(fields.yuan))
    } catch (error) {
      problems.push({field: 'yuan', message: (error as MoneyFormatError).message})
    }
  } else if (typeof fields.amount === 'string') {
    if (/^\d+$/.test(fields.amount)) fields.amount = Number(fields.amount)
    else problems.push({field: 'amount', message: `"${fields.amount}" is not a whole number of cents (use a yuan column for yuan)`})
  }
  delete fields.yuan
  return {fields, problems}
}

export function derivedBizTransferNo(fileSha256: string, index: number): string {
  return `BT${createHash('sha256').update(`${fileSha256}:${index}`).digest('hex').slice(0, 30)}`
}

function checkReadable(file: string): void {
  if (!existsSync(file)) throw new UsageError(`FILE: ${file} does not exist`)
  // checked up front: a stream error would not reach the line reader or the CSV parser
  try {
    if (!statSync(file).isFile()) throw new UsageError(`FILE: ${file} is not a file`)
    accessSync(file, constants.R_OK)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`FILE: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

/** Checks every row; problems are reported as they are found (nothing is kept per row). */
export async function validateBatch(
  file: string,
  defaults: Record<string, unknown>,
  onProblem: (problem: RowProblem) => void,
  /** A run's interrupt: a long file's check ends at once, with nothing sent. */
  signal?: AbortSignal,
): Promise<Plan & {problems: number}> {
  checkReadable(file)
  const hash = createHash('sha256')
  const plan: Plan = {rows: 0, totalCents: 0, byChannel: {}, fileSha256: ''}
  let problems = 0
  // header problems (CSV) are reported once, on line 1, and not again on every row
  const header = isJsonLines(file) ? {problems: [], fields: new Set<string>()} : headerProblems(readHeader(file), defaults)
  for (const problem of header.problems) {
    problems++
    onProblem(problem)
  }
  const reportedColumns = new Set<string>(header.fields)
  // keys given in the file must be unique in it (derived keys are unique by construction)
  const givenKeys = new Map<string, number>()
  for await (const item of readRows(file, hash)) {
    if (signal?.aborted) throw new InterruptedError(signal.reason, `interrupted while checking ${file} (${plan.rows} rows read); nothing was sent and no journal was written`)
    if (!('record' in item)) {
      problems++
      onProblem(item)
      continue
    }
    plan.rows++
    const {fields, problems: own} = rowFields(item.record, defaults)
    // a field with a problem of its own (say, an unparseable amount) is not reported twice
    const schemaProblems = checkFields(transferRowFields, {bizTransferNo: 'derived', ...fields}).filter((p) => !own.some((o) => o.field === p.field || (o.field === 'yuan' && p.field === 'amount')))
    const found = [...own, ...schemaProblems]
    for (const problem of found) {
      if (problem.field && header.fields.has(problem.field)) continue
      // an unknown JSON key would repeat on every row: report it once
      if (problem.message.startsWith('unknown column')) {
        if (reportedColumns.has(problem.field!)) continue
        reportedColumns.add(problem.field!)
      }
      problems++
      onProblem({line: item.line, ...problem})
    }
    const givenKey = fields.bizTransferNo === undefined ? undefined : `${String(fields.channel)}\u0000${String(fields.bizTransferNo)}`
    if (givenKey !== undefined && givenKeys.has(givenKey)) {
      problems++
      onProblem({line: item.line, field: 'bizTransferNo', message: `"${String(fields.bizTransferNo)}" is already used by the row on line ${givenKeys.get(givenKey)}`})
    } else if (givenKey !== undefined) givenKeys.set(givenKey, item.line)
    if (found.length === 0) {
      const channel = String(fields.channel)
      const amount = Number(fields.amount)
      plan.totalCents += amount
      plan.byChannel[channel] ??= {rows: 0, cents: 0}
      plan.byChannel[channel].rows++
      plan.byChannel[channel].cents += amount
    }
  }
  if (plan.rows === 0 && problems === 0) {
    problems++
    onProblem({line: 0, message: 'the file has no rows'})
  }
  plan.fileSha256 = hash.digest('hex')
  return {...plan, problems}
}

export interface PlannedRow {
  line: number
  bizTransferNo: string
  channel: string
  amount: number
  payee: string
}

/**
 * A dry run's plan: the whole file checked (refused on any problem, nothing sent) and, with
 * `out`, every row's plan written there. `name` is the file as the user gave it.
 */
export async function planBatch(file: string, name: string, defaults: Record<string, unknown>, onProblem: (problem: RowProblem) => void, out?: string): Promise<Plan & {problems: number}> {
  const plan = await validateBatch(file, defaults, onProblem)
  if (plan.problems > 0) throw new UsageError(`${plan.problems} problem${plan.problems === 1 ? '' : 's'} in ${name}: nothing would be sent`)
  if (out) await writeCsv(out, PLAN_COLUMNS, plannedRows(file, defaults, plan.fileSha256))
  return plan
}

/** The rows a run would send, in file order (for a dry run; the file must have passed validation). */
export async function* plannedRows(file: string, defaults: Record<string, unknown>, fileSha256: string): AsyncGenerator<PlannedRow> {
  for await (const item of readRows(file)) {
    if (!('record' in item)) continue
    const {fields} = rowFields(item.record, defaults)
    const bizTransferNo = String(fields.bizTransferNo ?? derivedBizTransferNo(fileSha256, item.index))
    yield {line: item.line, bizTransferNo, channel: String(fields.channel), amount: Number(fields.amount), payee: String(fields.payeeAccount)}
  }
}

/** Streams rows into a CSV file, with backpressure. */
export async function writeCsv(outFile: string, columns: string[], rows: AsyncIterable<object> | Iterable<object>): Promise<void> {
  const {stringify} = await import('csv-stringify')
  const out = stringify({header: true, columns})
  const done = new Promise<void>((resolve, reject) => {
    const file = createWriteStream(outFile)
    out.pipe(file).on('finish', () => resolve()).on('error', reject)
  })
  for await (const row of rows) if (!out.write(row)) await new Promise((resolve) => out.once('drain', resolve))
  out.end()
  await done
}

/** Which rows are finished: a watermark plus the few finished out of order above it. */
class FinishedRows {
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
type JournalEntry = StartEntry | SendingEntry | ({type: 'result'} & RowResult)

/**
 * A journal's state. A row's results run processing -> final (a later line wins); memory grows
 * with the rows still processing or unknown, not with the file.
 */
interface JournalState {
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
function applyResult(state: JournalState, result: RowResult): boolean {
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

async function readJournal(journal: string, keep = true): Promise<JournalState> {
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

function tallyOf(state: JournalState, journal: string, unknownRows: RowResult[], outFile?: string): Tally {
  const counts = {...state.counts, processing: state.pending.size, unknown: unknownRows.length}
  return {rows: state.start?.rows ?? state.done + unknownRows.length, counts, failed: [...state.failed, ...unknownRows.map(failedRow)], journal, outFile}
}

/** A journal appended to synchronously (a kill never loses a line already returned); quiet once closed. */
function openJournal(journal: string) {
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
function checkSamePlatform(start: StartEntry | undefined, client: ClientConfig, journal: string): void {
  if (!start) return
  if ((start.mchNo ?? '') !== (client.mchNo ?? '')) {
    throw new UsageError(`${journal} was run as merchant ${start.mchNo ?? '(none)'}, but this profile is merchant ${client.mchNo ?? '(none)'}: use the profile the batch was started with`)
  }
  if (start.baseUrl !== client.baseUrl) {
    throw new UsageError(`${journal} was run against ${start.baseUrl}, but this profile points at ${client.baseUrl}: use the profile the batch was started with`)
  }
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
  const prior = await priorRun(journal, plan, options)
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

/** An earlier run's state, and where its journal goes when it was a finished run of other content. */
interface PriorRun {
  state: JournalState
  archiveTo?: string
}

/**
 * What an earlier run of this file left in its journal, checked before the platform is reached:
 * an unfinished run of other content, or of this file without --resume, is refused here.
 */
async function priorRun(journal: string, plan: Plan, options: RunOptions): Promise<PriorRun> {
  const keep = Boolean(options.waitMs)
  if (!existsSync(journal)) return {state: emptyState(keep)}
  const read = await readJournal(journal, keep)
  const complete = read.start !== undefined && read.done >= read.start.rows
  if (read.start && read.start.fileSha256 !== plan.fileSha256) {
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

  const process = async (row: RawRow) => {
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
      const task = process(item)
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

/** Whether to go on sending: not after an interruption, nor after a run of transport failures. */
class Health {
  stopped: Summary['stopped']
  private failures = 0
  private halt!: () => void
  /** Settles when the run must stop (so a full window of rows does not hold the loop). */
  readonly halted = new Promise<void>((resolve) => (this.halt = resolve))

  constructor(signal?: AbortSignal) {
    if (signal?.aborted) this.stop('interrupted')
    signal?.addEventListener('abort', () => this.stop('interrupted'), {once: true})
  }

  answered(): void {
    this.failures = 0
  }

  unreachable(): void {
    if (++this.failures >= UNREACHABLE_AFTER) this.stop('unreachable')
  }

  private stop(reason: NonNullable<Summary['stopped']>): void {
    this.stopped ??= reason
    this.halt()
  }
}

type Settled = Omit<RowResult, 'index' | 'line' | 'bizTransferNo' | 'channel' | 'amount'>

/** One row's outcome: create; when the outcome is unknown, query before any resend. */
async function settleRow(client: ClientConfig, fields: Record<string, unknown>, mayHaveLanded: boolean, health: Health): Promise<Settled> {
  let checkFirst = mayHaveLanded
  let lastError = ''
  for (let attempt = 1; attempt <= SEND_ATTEMPTS; attempt++) {
    // once the run stops, a row not yet answered is left for --resume (its "sending" line stays)
    if (attempt > 1 && health.stopped) break
    if (checkFirst) {
      const found = await lookUp(client, fields, health)
      if (found === 'unreachable') {
        lastError = 'the platform could not be reached to check this row'
        await pause(attempt)
        continue
      }
      if (found) return sameRow(found, fields)
    }
    try {
      const created = await createTransfer(client, fields)
      health.answered()
      const data = (created.response?.body.data ?? {}) as Record<string, unknown>
      return {outcome: data.status === 'success' ? 'success' : 'processing', transferNo: String(data.transferNo ?? '')}
    } catch (error) {
      if (!(error instanceof TransportError)) health.answered()
      if (error instanceof PlatformError && error.code === 10507) {
        // already submitted (an earlier run, or a duplicate key in the file): report what it became
        const found = await lookUp(client, fields, health)
        if (found && found !== 'unreachable') return sameRow({...found, message: `already submitted: ${found.message ?? found.outcome}`}, fields)
        // it exists but cannot be read now: unknown, to be settled by --resume
        lastError = `already submitted, but it could not be looked up: ${error.platformMessage}`
        checkFirst = true
        await pause(attempt)
        continue
      }
      if (error instanceof PlatformError && error.signed === false) {
        // an unsigned error proves nothing about a create: look it up before believing it
        lastError = error.message
        checkFirst = true
        await pause(attempt)
        continue
      }
      if (error instanceof PlatformError) {
        // a refused transfer may still have a platform number (the channel refused it): name it
        const found = await lookUp(client, fields, health)
        const transferNo = found && found !== 'unreachable' && found.outcome === 'fail' ? found.transferNo : undefined
        return {outcome: 'fail', code: error.code, message: error.platformMessage, ...(transferNo ? {transferNo} : {})}
      }
      if (error instanceof SignatureError) {
        lastError = error.message
        checkFirst = true
      } else if (error instanceof TransportError) {
        health.unreachable()
        lastError = error.message
        checkFirst = error.outcomeUnknown
      } else throw error
      await pause(attempt)
    }
  }
  return {outcome: 'unknown', message: `${lastError}; run again with --resume to settle this row`}
}

type Found = Settled & {foundAmount?: number}

/** What identifies a row on the platform. */
type RowKey = {bizTransferNo?: unknown; channel?: unknown; amount?: unknown}

async function lookUp(client: ClientConfig, fields: RowKey, health?: Health): Promise<Found | undefined | 'unreachable'> {
  try {
    const answer = await queryTransfer(client, {bizTransferNo: String(fields.bizTransferNo), channel: String(fields.channel)})
    health?.answered()
    const data = (answer.response?.body.data ?? {}) as Record<string, unknown>
    const status = String(data.status)
    const outcome: Outcome = status === 'success' ? 'success' : status === 'fail' || status === 'close' ? 'fail' : 'processing'
    return {outcome, transferNo: String(data.transferNo ?? ''), message: data.errorMsg ? String(data.errorMsg) : undefined, foundAmount: Number(data.amount)}
  } catch (error) {
    if (error instanceof TransportError) health?.unreachable()
    else health?.answered()
    if (error instanceof PlatformError && error.code === 20041) return undefined
    return 'unreachable'
  }
}

/** A transfer found under the row's key is this row's only if the amounts agree. */
function sameRow(found: Found, fields: RowKey): Settled {
  const {foundAmount, ...result} = found
  if (foundAmount !== undefined && Number.isFinite(foundAmount) && foundAmount !== Number(fields.amount)) {
    return {outcome: 'fail', transferNo: result.transferNo, message: `bizTransferNo ${String(fields.bizTransferNo)} already belongs to another transfer (${foundAmount} cents): this row was not paid`}
  }
  return result
}

/** A pause that an abort cuts short (its timer cleared, so it never holds the process). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), {once: true})
  })
}
const pause = (attempt: number) => sleep(200 * 2 ** attempt)

/**
 * Re-queries rows until none is processing or the deadline passes, with backoff between rounds
 * (1 s doubling to 30 s). Changed rows are journalled. One round when the deadline is now.
 */
async function followPending(
  client: ClientConfig,
  state: JournalState,
  log: ReturnType<typeof openJournal>,
  options: {deadline: number; concurrency: number; signal?: AbortSignal; onWait?: (processing: number) => void},
): Promise<void> {
  let delay = 1000
  for (;;) {
    options.onWait?.(state.pending.size)
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
      }
    }
    await Promise.all(Array.from({length: Math.min(options.concurrency, rows.length)}, worker))
    const left = options.deadline - Date.now()
    if (state.pending.size === 0 || left <= 0 || options.signal?.aborted) return
    await sleep(Math.min(delay, left), options.signal)
    delay = Math.min(delay * 2, 30_000)
  }
}

export interface StatusOptions {
  /** The batch file (its FILE.journal is read), or a journal itself. */
  file: string
  client: ClientConfig
  concurrency: number
  outFile?: string
  waitMs?: number
  signal?: AbortSignal
  onWait?: (processing: number) => void
}

/** Re-queries every row not final in a batch's journal, records what changed, rewrites --out. */
export async function batchStatus(options: StatusOptions): Promise<Tally & {notSent: number}> {
  const byJournal = options.file.endsWith('.journal')
  const journal = byJournal ? options.file : `${options.file}.journal`
  if (!existsSync(journal)) throw new UsageError(`no journal ${journal}: ${options.file} has not been run (or its journal was moved)`)
  const state = await readJournal(journal)
  if (!byJournal && state.start && existsSync(options.file)) {
    // the rows of an edited file are not the rows the journal speaks of
    const sha256 = await fileSha256(options.file)
    if (sha256 !== state.start.fileSha256) {
      throw new UsageError(`${options.file} changed since the run ${journal} records (sha256 ${state.start.fileSha256.slice(0, 12)}, now ${sha256.slice(0, 12)}): restore it, or give the journal itself to see that run`)
    }
  }
  checkSamePlatform(state.start, options.client, journal)
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
  const unknownRows = [...state.unresolved].map(([index, e]): RowResult => ({index, line: e.line ?? 0, bizTransferNo: e.bizTransferNo, channel: e.channel ?? '', amount: e.amount ?? 0, outcome: 'unknown', message: 'not created yet: run the batch again with --resume'}))
  const outFile = options.outFile ?? state.start?.outFile
  if (outFile) await writeResults(journal, unknownRows, outFile)
  // rows an interrupted or stopped run never reached: only --resume sends them
  const notSent = Math.max(0, (state.start?.rows ?? 0) - state.done - state.unresolved.size)
  return {...tallyOf(state, journal, unknownRows, outFile), notSent}
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The result CSV: each row's latest result from the journal, then the rows still unknown. */
async function writeResults(journal: string, unknownRows: RowResult[], outFile: string): Promise<void> {
  // pass 1 finds the rows whose result changed later (processing, then final): few, kept by index
  const latest = new Map<number, RowResult>()
  const seen = new FinishedRows()
  const entries = async function* () {
    for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
      try {
        const entry = JSON.parse(line) as JournalEntry
        if (entry.type === 'result') yield entry
      } catch {
        // a torn line: that row is unknown
      }
    }
  }
  for await (const entry of entries()) {
    if (!seen.has(entry.index)) seen.add(entry.index)
    else latest.set(entry.index, entry)
  }
  const written = new FinishedRows()
  await writeCsv(
    outFile,
    RESULT_COLUMNS,
    (async function* () {
      for await (const entry of entries()) {
        if (written.has(entry.index)) continue
        written.add(entry.index)
        yield latest.get(entry.index) ?? entry
      }
      yield* unknownRows
    })(),
  )
}
