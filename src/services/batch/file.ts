// The batch file: its header, its rows, each row checked before anything is sent, and the plan
// (rows and amounts, in all and by channel; each row's bizTransferNo) a run will follow.
import {createHash} from 'node:crypto'
import {accessSync, closeSync, constants, createReadStream, existsSync, openSync, readSync, statSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {InterruptedError, readProblem, UsageError} from '../../errors.js'
import {closest} from '../../protocol/closest.js'
import {MoneyFormatError, yuanToCents} from '../../protocol/money.js'
import {checkFields, unsendableFields} from '../../protocol/field-rules.js'
import {transferRowFields} from '../../protocol/schemas.js'
import {counted} from '../../protocol/plural.js'
import {PLAN_COLUMNS, writeCsv} from './results.js'

const COLUMNS = ['channel', 'channelMchNo', 'bizTransferNo', 'amount', 'yuan', 'title', 'reason', 'payeeType', 'payeeAccount', 'payeeName', 'attach', 'notifyUrl', 'transferScene', 'reportInfos']
/** Fields every row needs, from a column or a flag default (amount may come as yuan). */
const REQUIRED_COLUMNS = ['channel', 'channelMchNo', 'payeeType', 'payeeAccount', 'amount']

export interface RowProblem {
  /** 0: the file as a whole. */
  line: number
  field?: string
  message: string
}

export interface Plan {
  rows: number
  totalCents: number
  byChannel: Record<string, {rows: number; cents: number}>
  fileSha256: string
}

export interface RawRow {
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

/**
 * Rows of the file with their line numbers, in batches (the rows parsed from one read of the
 * file, a few hundred): consumers check a batch without waiting between rows, so a row's objects
 * die young and memory stays flat. The file's SHA-256 goes into `hash` as it is read.
 */
export async function* readRows(file: string, hash?: ReturnType<typeof createHash>): AsyncGenerator<(RawRow | RowProblem)[]> {
  const {parse} = await import('csv-parse')
  // Set up every consumer in the same tick: a 'data' listener starts the flow at once.
  const stream = createReadStream(file, {highWaterMark: 16 * 1024})
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
        yield [{line, message: `not JSON: ${(error as Error).message}`}]
        continue
      }
      if (record === null || typeof record !== 'object' || Array.isArray(record)) yield [{line, message: 'not a JSON object'}]
      else yield [{index: index++, line, record: record as Record<string, unknown>}]
    }
    return
  }
  const {delimiter} = readHeader(file)
  const parser = parse({columns: true, delimiter, skip_empty_lines: true, trim: true, bom: true})
  // Each record with its line, from the parser's count as it hands the record on. (Its `info`
  // option gives the line too, but builds an object of a dozen fields per row: most of the cost
  // of reading a file, and what filled the heap on long ones.)
  const push = parser.push.bind(parser)
  parser.push = (record: Record<string, string> | null) => push(record === null ? null : {record, line: parser.info.lines})
  stream.pipe(parser)
  type Parsed = {record: Record<string, string>; line: number}
  try {
    for await (const first of parser as AsyncIterable<Parsed>) {
      // the rest of what this read parsed is there already
      const batch: RawRow[] = [{index: index++, line: first.line, record: first.record}]
      for (let next: Parsed | null; (next = parser.read() as Parsed | null) !== null; ) batch.push({index: index++, line: next.line, record: next.record})
      yield batch
    }
  } catch (error) {
    const lines = (error as {lines?: number}).lines
    yield [{line: lines ?? 0, message: `not valid CSV: ${(error as Error).message}`}]
  }
}

function unknownColumn(column: string): string {
  const near = closest(column, COLUMNS, {ignoreCase: true})
  return near ? `unknown column: did you mean ${near}?` : `unknown column (columns: ${COLUMNS.join(', ')})`
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
export function rowFields(record: Record<string, unknown>, defaults: Record<string, unknown>): {fields: Record<string, unknown>; problems: Omit<RowProblem, 'line'>[]} {
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

/**
 * A row's bizTransferNo when the file gives none: from the file's content and the row, so a
 * resumed run sends each row under the number it was first sent with. A run paying a finished
 * file again (--again) adds its run id: new numbers, recorded in its journal.
 */
export function derivedBizTransferNo(fileSha256: string, index: number, runId?: string): string {
  return `BT${createHash('sha256').update(runId ? `${fileSha256}:${runId}:${index}` : `${fileSha256}:${index}`).digest('hex').slice(0, 30)}`
}

function checkReadable(file: string): void {
  if (!existsSync(file)) throw new UsageError(`FILE: ${file} does not exist`)
  // checked up front: a stream error would not reach the line reader or the CSV parser
  try {
    if (!statSync(file).isFile()) throw new UsageError(`FILE: ${file} is not a file`)
    accessSync(file, constants.R_OK)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`FILE: cannot read ${file}: ${readProblem(error)}`)
  }
}

/** Checks every row; problems are reported as they are found (nothing is kept per row). */
export async function validateBatch(
  file: string,
  defaults: Record<string, unknown>,
  onProblem: (problem: RowProblem) => void,
  /** A run's interrupt: a long file's check ends at once, with nothing sent. */
  signal?: AbortSignal,
): Promise<Plan & {problems: number; keyed: number}> {
  checkReadable(file)
  const hash = createHash('sha256')
  const plan: Plan = {rows: 0, totalCents: 0, byChannel: {}, fileSha256: ''}
  let problems = 0
  /** Rows that give their own bizTransferNo. */
  let keyed = 0
  // header problems (CSV) are reported once, on line 1, and not again on every row
  const header = isJsonLines(file) ? {problems: [], fields: new Set<string>()} : headerProblems(readHeader(file), defaults)
  for (const problem of header.problems) {
    problems++
    onProblem(problem)
  }
  const reportedColumns = new Set<string>(header.fields)
  // keys given in the file must be unique in it (derived keys are unique by construction)
  const givenKeys = new Map<string, number>()
  for await (const batch of readRows(file, hash)) for (const item of batch) {
    if (signal?.aborted) throw new InterruptedError(signal.reason, `interrupted while checking ${file} (${counted(plan.rows, 'row')} read); nothing was sent and no journal was written`)
    if (!('record' in item)) {
      problems++
      onProblem(item)
      continue
    }
    plan.rows++
    const {fields, problems: own} = rowFields(item.record, defaults)
    // a field with a problem of its own (say, an unparseable amount) is not reported twice
    const schemaProblems = checkFields(transferRowFields, {bizTransferNo: 'derived', ...fields}).filter((p) => !own.some((o) => o.field === p.field || (o.field === 'yuan' && p.field === 'amount')))
    const found = [...own, ...schemaProblems, ...unsendableFields(fields, '')]
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
    if (givenKey !== undefined) keyed++
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
    onProblem({line: 0, message: 'no rows: the file is empty or has only its header'})
  }
  plan.fileSha256 = hash.digest('hex')
  return {...plan, problems, keyed}
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
  const {keyed: _, ...plan} = await validateBatch(file, defaults, onProblem)
  if (plan.problems > 0) throw new UsageError(`${counted(plan.problems, 'problem')} in ${name}: nothing would be sent`)
  if (out) await writeCsv(out, PLAN_COLUMNS, plannedRows(file, defaults, plan.fileSha256))
  return plan
}

/** The rows a run would send, in file order (for a dry run; the file must have passed validation). */
export async function* plannedRows(file: string, defaults: Record<string, unknown>, fileSha256: string): AsyncGenerator<PlannedRow> {
  for await (const batch of readRows(file)) for (const item of batch) {
    if (!('record' in item)) continue
    const {fields} = rowFields(item.record, defaults)
    const bizTransferNo = String(fields.bizTransferNo ?? derivedBizTransferNo(fileSha256, item.index))
    yield {line: item.line, bizTransferNo, channel: String(fields.channel), amount: Number(fields.amount), payee: String(fields.payeeAccount)}
  }
}
