// Batch transfers from a CSV (with a header) or JSON-lines file, for unattended jobs:
// - every row is validated before anything is sent (all bad rows reported, by line);
// - each row's bizTransferNo is fixed before the first send (a column, or derived from the
//   file's hash and the row index), so a resend can never pay twice;
// - a journal beside the file records "sending" before each call and the outcome after, so a
//   run killed at any moment resumes: rows whose outcome is unknown are queried, not resent;
// - rows stream through with bounded concurrency, so memory stays flat for any file size.
import {createHash} from 'node:crypto'
import {accessSync, closeSync, constants, createReadStream, createWriteStream, existsSync, openSync, statSync, writeSync} from 'node:fs'
import {createInterface} from 'node:readline'
import type {ClientConfig} from '../client/pipeline.js'
import {PlatformError, SignatureError, TransportError, UsageError} from '../errors.js'
import {MoneyFormatError, yuanToCents} from '../protocol/money.js'
import {checkFields, transferRowFields} from '../protocol/schemas.js'
import {createTransfer, queryTransfer} from './transfer.js'

const COLUMNS = ['channel', 'channelMchNo', 'bizTransferNo', 'amount', 'yuan', 'title', 'reason', 'payeeType', 'payeeAccount', 'payeeName', 'attach', 'notifyUrl', 'transferScene', 'reportInfos']
const SEND_ATTEMPTS = 3

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

export interface Summary extends Plan {
  /** Rows finished by an earlier run (resume). */
  previouslyDone: number
  counts: Record<Outcome, number>
  journal: string
}

interface RawRow {
  index: number
  line: number
  record: Record<string, unknown>
}

/** Rows of the file with their line numbers; the file's SHA-256 once fully read. */
async function* readRows(file: string, hash?: ReturnType<typeof createHash>): AsyncGenerator<RawRow | RowProblem> {
  const jsonLines = /\.(jsonl|ndjson)$/i.test(file)
  const {parse} = await import('csv-parse')
  // Set up every consumer in the same tick: a 'data' listener starts the flow at once.
  const stream = createReadStream(file)
  if (hash) stream.on('data', (chunk) => hash.update(chunk))
  let index = 0
  if (jsonLines) {
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
  const parser = stream.pipe(parse({columns: true, skip_empty_lines: true, trim: true, bom: true, info: true}))
  try {
    for await (const {record, info} of parser as AsyncIterable<{record: Record<string, string>; info: {lines: number}}>) {
      yield {index: index++, line: info.lines, record}
    }
  } catch (error) {
    const lines = (error as {lines?: number}).lines
    yield {line: lines ?? 0, message: `not valid CSV: ${(error as Error).message}`}
  }
}

/** A row's transfer fields: columns, flag defaults, amount from cents or yuan. */
function rowFields(record: Record<string, unknown>, defaults: Record<string, unknown>): {fields: Record<string, unknown>; problems: Omit<RowProblem, 'line'>[]} {
  const problems: Omit<RowProblem, 'line'>[] = []
  const fields: Record<string, unknown> = {}
  for (const [column, raw] of Object.entries(record)) {
    if (!COLUMNS.includes(column)) {
      problems.push({field: column, message: `unknown column (columns: ${COLUMNS.join(', ')})`})
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

/** Checks every row; problems are reported as they are found (nothing is kept per row). */
export async function validateBatch(file: string, defaults: Record<string, unknown>, onProblem: (problem: RowProblem) => void): Promise<Plan & {problems: number}> {
  if (!existsSync(file)) throw new UsageError(`FILE: ${file} does not exist`)
  // checked up front: a stream error would not reach the line reader or the CSV parser
  try {
    if (!statSync(file).isFile()) throw new UsageError(`FILE: ${file} is not a file`)
    accessSync(file, constants.R_OK)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`FILE: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  const hash = createHash('sha256')
  const plan: Plan = {rows: 0, totalCents: 0, byChannel: {}, fileSha256: ''}
  let problems = 0
  const reportedColumns = new Set<string>()
  // keys given in the file must be unique in it (derived keys are unique by construction)
  const givenKeys = new Map<string, number>()
  for await (const item of readRows(file, hash)) {
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
      // an unknown CSV column would repeat on every row: report it once
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

type JournalEntry =
  | {type: 'start'; fileSha256: string; rows: number; mchNo?: string; baseUrl: string; at: string}
  | {type: 'sending'; index: number; bizTransferNo: string}
  | ({type: 'result'} & RowResult)

async function readJournal(journal: string) {
  const finished = new FinishedRows()
  const unresolved = new Set<number>()
  const counts: Record<Outcome, number> = {success: 0, processing: 0, fail: 0, unknown: 0}
  let start: Extract<JournalEntry, {type: 'start'}> | undefined
  let done = 0
  for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
    let entry: JournalEntry
    try {
      entry = JSON.parse(line)
    } catch {
      continue // a line torn by a kill mid-write: its row is treated as unresolved
    }
    if (entry.type === 'start') start = entry
    else if (entry.type === 'sending') unresolved.add(entry.index)
    else if (entry.type === 'result' && !finished.has(entry.index)) {
      finished.add(entry.index)
      unresolved.delete(entry.index)
      counts[entry.outcome]++
      done++
    }
  }
  return {start, finished, unresolved, counts, done}
}

export interface RunOptions {
  file: string
  defaults: Record<string, unknown>
  client: ClientConfig
  concurrency: number
  resume: boolean
  outFile?: string
  onProblem: (problem: RowProblem) => void
  onStart?: (plan: Plan, previouslyDone: number) => void
  onRow?: (result: RowResult) => void
}

export async function runBatch(options: RunOptions): Promise<Summary> {
  const {file, client} = options
  const plan = await validateBatch(file, options.defaults, options.onProblem)
  if (plan.problems > 0) throw new UsageError(`${plan.problems} problem${plan.problems === 1 ? '' : 's'} in ${file}: nothing was sent`)
  const journal = `${file}.journal`
  let previous = {finished: new FinishedRows(), unresolved: new Set<number>(), counts: {success: 0, processing: 0, fail: 0, unknown: 0}, done: 0}
  if (existsSync(journal)) {
    if (!options.resume) throw new UsageError(`${journal} exists from an earlier run: pass --resume to finish it (rows already paid are not paid again), or remove it to start over`)
    const read = await readJournal(journal)
    if (read.start && read.start.fileSha256 !== plan.fileSha256) {
      throw new UsageError(`${file} changed since the run recorded in ${journal} started; restore it, or remove the journal to start over`)
    }
    previous = read
  }
  const fd = openSync(journal, 'a', 0o600)
  const write = (entry: JournalEntry) => writeSync(fd, `${JSON.stringify(entry)}\n`)
  if (previous.done === 0 && previous.unresolved.size === 0) {
    write({type: 'start', fileSha256: plan.fileSha256, rows: plan.rows, mchNo: client.mchNo, baseUrl: client.baseUrl, at: new Date().toISOString()})
  }
  options.onStart?.(plan, previous.done)
  const counts = {...previous.counts}
  const unknownRows: RowResult[] = []

  const process = async (row: RawRow) => {
    const {fields} = rowFields(row.record, options.defaults)
    fields.bizTransferNo ??= derivedBizTransferNo(plan.fileSha256, row.index)
    const base = {index: row.index, line: row.line, bizTransferNo: String(fields.bizTransferNo), channel: String(fields.channel), amount: Number(fields.amount)}
    const mayHaveLanded = previous.unresolved.has(row.index)
    if (!mayHaveLanded) write({type: 'sending', index: row.index, bizTransferNo: base.bizTransferNo})
    const result: RowResult = {...base, ...(await settleRow(client, fields, mayHaveLanded))}
    if (result.outcome === 'unknown') unknownRows.push(result)
    else write({type: 'result', ...result})
    counts[result.outcome]++
    options.onRow?.(result)
  }

  // Bounded concurrency over the streamed rows.
  const running = new Set<Promise<void>>()
  try {
    for await (const item of readRows(file)) {
      if (!('record' in item) || previous.finished.has(item.index)) continue
      const task = process(item).finally(() => running.delete(task))
      running.add(task)
      if (running.size >= options.concurrency) await Promise.race(running)
    }
    await Promise.all(running)
  } finally {
    closeSync(fd)
  }
  if (options.outFile) await writeResults(journal, unknownRows, options.outFile)
  return {...plan, previouslyDone: previous.done, counts, journal}
}

/** One row's outcome: create; when the outcome is unknown, query before any resend. */
async function settleRow(client: ClientConfig, fields: Record<string, unknown>, mayHaveLanded: boolean): Promise<Omit<RowResult, 'index' | 'line' | 'bizTransferNo' | 'channel' | 'amount'>> {
  let checkFirst = mayHaveLanded
  let lastError = ''
  for (let attempt = 1; attempt <= SEND_ATTEMPTS; attempt++) {
    if (checkFirst) {
      const found = await lookUp(client, fields)
      if (found === 'unreachable') {
        lastError = 'the platform could not be reached to check this row'
        await pause(attempt)
        continue
      }
      if (found) return sameRow(found, fields)
    }
    try {
      const created = await createTransfer(client, fields)
      const data = (created.response?.body.data ?? {}) as Record<string, unknown>
      return {outcome: data.status === 'success' ? 'success' : 'processing', transferNo: String(data.transferNo ?? '')}
    } catch (error) {
      if (error instanceof PlatformError && error.code === 10507) {
        // already submitted (an earlier run, or a duplicate key in the file): report what it became
        const found = await lookUp(client, fields)
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
      if (error instanceof PlatformError) return {outcome: 'fail', code: error.code, message: error.platformMessage}
      if (error instanceof SignatureError) {
        lastError = error.message
        checkFirst = true
      } else if (error instanceof TransportError) {
        lastError = error.message
        checkFirst = error.outcomeUnknown
      } else throw error
      await pause(attempt)
    }
  }
  return {outcome: 'unknown', message: `${lastError}; resume later to settle this row`}
}

async function lookUp(client: ClientConfig, fields: Record<string, unknown>): Promise<Found | undefined | 'unreachable'> {
  try {
    const answer = await queryTransfer(client, {bizTransferNo: String(fields.bizTransferNo), channel: String(fields.channel)})
    const data = (answer.response?.body.data ?? {}) as Record<string, unknown>
    const status = String(data.status)
    const outcome: Outcome = status === 'success' ? 'success' : status === 'fail' || status === 'close' ? 'fail' : 'processing'
    return {outcome, transferNo: String(data.transferNo ?? ''), message: data.errorMsg ? String(data.errorMsg) : undefined, foundAmount: Number(data.amount)}
  } catch (error) {
    if (error instanceof PlatformError && error.code === 20041) return undefined
    return 'unreachable'
  }
}

type Found = Omit<RowResult, 'index' | 'line' | 'bizTransferNo' | 'channel' | 'amount'> & {foundAmount?: number}

/** A transfer found under the row's key is this row's only if the amounts agree. */
function sameRow(found: Found, fields: Record<string, unknown>): Omit<RowResult, 'index' | 'line' | 'bizTransferNo' | 'channel' | 'amount'> {
  const {foundAmount, ...result} = found
  if (foundAmount !== undefined && Number.isFinite(foundAmount) && foundAmount !== Number(fields.amount)) {
    return {outcome: 'fail', transferNo: result.transferNo, message: `bizTransferNo ${String(fields.bizTransferNo)} already belongs to another transfer (${foundAmount} cents): this row was not paid`}
  }
  return result
}

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt))

/** The result CSV: every finished row from the journal, then the rows still unknown. */
async function writeResults(journal: string, unknownRows: RowResult[], outFile: string): Promise<void> {
  const {stringify} = await import('csv-stringify')
  const columns = ['line', 'bizTransferNo', 'channel', 'amount', 'outcome', 'transferNo', 'code', 'message']
  const out = stringify({header: true, columns})
  const done = new Promise<void>((resolve, reject) => {
    const file = createWriteStream(outFile)
    out.pipe(file).on('finish', () => resolve()).on('error', reject)
  })
  const seen = new FinishedRows()
  for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
    let entry: JournalEntry
    try {
      entry = JSON.parse(line)
    } catch {
      continue
    }
    if (entry.type !== 'result' || seen.has(entry.index)) continue
    seen.add(entry.index)
    if (!out.write(entry)) await new Promise((resolve) => out.once('drain', resolve))
  }
  for (const row of unknownRows) out.write(row)
  out.end()
  await done
}
