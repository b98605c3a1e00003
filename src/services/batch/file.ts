// The batch file: its header, its rows, each row checked before anything is sent, and the plan
// (rows and amounts, in all and by channel; each row's bizTransferNo) a run will follow.
import {createHash} from 'node:crypto'
import {InterruptedError, UsageError} from '../../errors.js'
import {MAX_TRANSFER_CENTS, MoneyFormatError, yuanToCentsWithin} from '../../protocol/money.js'
import {checkFields, unsendableFields} from '../../protocol/field-rules.js'
import {transferRowFields} from '../../protocol/schemas.js'
import {counted} from '../../protocol/plural.js'
import {writeCsv} from '../files/csv-writer.js'
import {checkReadable, isJsonLines, readHeader, readRows, separatorProblem, unknownColumn as unknownFileColumn, type Header, type RowProblem} from '../files/reader.js'
import {checkRunFiles} from './journal.js'

export type {RowProblem}

const COLUMNS = ['channel', 'channelMchNo', 'bizTransferNo', 'amount', 'yuan', 'title', 'reason', 'payeeType', 'payeeAccount', 'payeeName', 'attach', 'notifyUrl', 'transferScene', 'reportInfos']
/** Fields every row needs, from a column or a flag default (amount may come as yuan). */
const REQUIRED_COLUMNS = ['channel', 'channelMchNo', 'payeeType', 'payeeAccount', 'amount']

/** The columns of the --dry-run plan CSV. */
export const PLAN_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'payee']

export interface Plan {
  rows: number
  totalCents: number
  byChannel: Record<string, {rows: number; cents: number}>
  fileSha256: string
}

const unknownColumn = (column: string) => unknownFileColumn(column, COLUMNS)

/** Problems of the header, reported once on line 1; the fields they cover are not reported per row. */
function headerProblems(header: Header, defaults: Record<string, unknown>): {problems: RowProblem[]; fields: Set<string>} {
  const problems: RowProblem[] = []
  const fields = new Set<string>()
  const {columns} = header
  if (columns.length === 1 && columns[0] === '') return {problems, fields} // an empty file: "no rows" says it
  const separator = separatorProblem(header, COLUMNS)
  if (separator) {
    problems.push({line: 1, message: separator})
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
    const flag = {channel: ' (or --channel)', channelMchNo: ' (or --channel-mch-no, or the profile\'s: unipay profile set channelMchNo CHANNEL_MCH_NO)'}[field] ?? ''
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
      fields.amount = yuanToCentsWithin(String(fields.yuan), 1, MAX_TRANSFER_CENTS)
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
  checkReadable(file)
  if (out) checkRunFiles(file, out, {writesJournal: false})
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
