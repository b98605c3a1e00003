// The ledger: what the merchant's system exports, one record of its books per row (CSV with a
// header, or JSON lines), in the spec's words: which record (its business number), its amount,
// its status and, for a payment, what the merchant believes refunded. Read by the shared file
// reader as `transfer batch` reads its file; every row is checked before anything is asked.
import {closest} from '../../protocol/closest.js'
import {FUND_STATUS, PAY_STATUS, REFUND_STATUS} from '../../protocol/enums.js'
import {unsendableFields} from '../../protocol/field-rules.js'
import {TRANSFER_CHANNELS} from '../../protocol/schemas.js'
import {MoneyFormatError, yuanToCents} from '../../protocol/money.js'
import {separatorProblem, unknownColumn, type Header, type RowProblem} from '../files/reader.js'

/** The columns (or JSON keys) a ledger's rows may have; any other is ignored, and named once. */
export const LEDGER_COLUMNS = ['kind', 'bizOrderNo', 'bizRefundNo', 'bizTransferNo', 'channel', 'amount', 'yuan', 'status', 'refunded'] as const

const KINDS = ['pay', 'refund', 'transfer'] as const
export type Kind = (typeof KINDS)[number]

/** Each kind's own status words: its record's enum (a payment also takes the fund-status words, protocol-notes section 4). */
const STATUS_WORDS: Record<Kind, readonly string[]> = {
  pay: [...PAY_STATUS, 'init', 'processing'],
  refund: REFUND_STATUS,
  transfer: FUND_STATUS,
}

const NUMBER_COLUMN: Record<Kind, 'bizOrderNo' | 'bizRefundNo' | 'bizTransferNo'> = {pay: 'bizOrderNo', refund: 'bizRefundNo', transfer: 'bizTransferNo'}
/** The columns each kind may fill (channel is a payment's wallet in many exports: allowed, not compared). */
const KIND_COLUMNS: Record<Kind, readonly string[]> = {
  pay: ['kind', 'bizOrderNo', 'channel', 'amount', 'yuan', 'status', 'refunded'],
  refund: ['kind', 'bizRefundNo', 'bizOrderNo', 'channel', 'amount', 'yuan', 'status'],
  transfer: ['kind', 'bizTransferNo', 'channel', 'amount', 'yuan', 'status'],
}
const KIND_NAMES: Record<Kind, string> = {pay: 'payment', refund: 'refund', transfer: 'transfer'}
/** Business numbers are at most 100 characters (the spec's query parameters). */
const MAX_NUMBER = 100

/** One row of the ledger, checked. */
export interface LedgerRow {
  index: number
  line: number
  kind: Kind
  /** Its business number: bizOrderNo, bizRefundNo or bizTransferNo by kind. */
  number: string
  /** A refund's order, when the ledger gives it. */
  bizOrderNo?: string
  /** A transfer's channel. */
  channel?: string
  /** Cents. */
  amount: number
  /** As the ledger says it, in lower case. */
  status: string
  /** A payment's refunded cents, when the ledger has the column. */
  refunded?: number
}

type Problem = Omit<RowProblem, 'line'>

/** The ledger's key of a row: a second row with the same key is the same record twice. */
export function rowKey(row: Pick<LedgerRow, 'kind' | 'number' | 'bizOrderNo' | 'channel'>): string {
  if (row.kind === 'pay') return `p\u0000${row.number}`
  if (row.kind === 'refund') return refundKey(row.bizOrderNo, row.number)
  return `t\u0000${row.channel ?? ''}\u0000${row.number}`
}

/** A refund's key: a refund the ledger holds without its order matches any order's refund of that number. */
export const refundKey = (bizOrderNo: string | undefined, bizRefundNo: string): string => `r\u0000${bizOrderNo ?? ''}\u0000${bizRefundNo}`

/** A column is near one of the ledger's: a slip that would drop a column silently, refused. */
const nearMiss = (column: string): boolean => !(LEDGER_COLUMNS as readonly string[]).includes(column) && closest(column, LEDGER_COLUMNS, {ignoreCase: true}) !== undefined

/**
 * The header: problems (a separator, a near miss of a column, a column every row needs but the
 * file lacks) reported once on line 1, and the other columns, ignored.
 */
export function headerOf(header: Header): {problems: RowProblem[]; ignored: string[]; refunded: boolean} {
  const problems: RowProblem[] = []
  const {columns} = header
  if (columns.length === 1 && columns[0] === '') return {problems, ignored: [], refunded: false} // an empty file: "no rows" says it
  const separator = separatorProblem(header, LEDGER_COLUMNS)
  if (separator) return {problems: [{line: 1, message: separator}], ignored: [], refunded: false}
  const ignored: string[] = []
  for (const column of columns) {
    if (nearMiss(column)) problems.push({line: 1, field: column, message: unknownColumn(column, LEDGER_COLUMNS)})
    else if (!(LEDGER_COLUMNS as readonly string[]).includes(column)) ignored.push(column)
  }
  const has = (column: string) => columns.includes(column)
  if (!has('bizOrderNo') && !has('bizRefundNo') && !has('bizTransferNo')) problems.push({line: 1, message: 'no bizOrderNo, bizRefundNo or bizTransferNo column: every row needs its number'})
  if (!has('amount') && !has('yuan')) problems.push({line: 1, field: 'amount', message: 'no amount (or yuan) column: every row needs one'})
  if (!has('status')) problems.push({line: 1, field: 'status', message: 'no status column: every row needs one'})
  if (has('bizTransferNo') && !has('channel')) problems.push({line: 1, field: 'channel', message: 'no channel column: transfer rows need one (bizTransferNo is unique per channel)'})
  return {problems, ignored, refunded: has('refunded')}
}

/** A cell's text: trimmed; empty or null is no value. A JSON number is its literal. */
function cell(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value)
  return text === '' ? undefined : text
}

/** Whole cents from an `amount` or `refunded` cell. */
function cents(field: string, text: string, problems: Problem[]): number | undefined {
  if (/^\d{1,15}$/.test(text)) return Number(text)
  problems.push({field, message: `"${text}" is not a whole number of cents${field === 'amount' ? ' (use a yuan column for yuan)' : ''}`})
  return undefined
}

function kindOf(values: Record<string, string | undefined>, problems: Problem[]): Kind | undefined {
  const given = values.kind?.toLowerCase()
  if (given !== undefined) {
    if ((KINDS as readonly string[]).includes(given)) return given as Kind
    const near = closest(given, KINDS)
    problems.push({field: 'kind', message: `"${values.kind}" is not one of ${KINDS.join(', ')}${near ? `: did you mean ${near}?` : ''}`})
    return undefined
  }
  if (values.bizTransferNo !== undefined && values.bizRefundNo !== undefined) {
    problems.push({message: 'both bizRefundNo and bizTransferNo: a kind column (pay, refund, transfer) says which record the row is'})
    return undefined
  }
  if (values.bizTransferNo !== undefined) return 'transfer'
  if (values.bizRefundNo !== undefined) return 'refund'
  if (values.bizOrderNo !== undefined) return 'pay'
  problems.push({message: 'no number: a row needs bizOrderNo (a payment), bizRefundNo (a refund) or bizTransferNo (a transfer)'})
  return undefined
}

/**
 * One record checked: its kind (the kind column, else the number it gives), number, amount (cents
 * or yuan), status (a word of its own record's enum) and, for a payment, refunded cents. Unknown
 * keys of a JSON line come back in `unknown` (near misses among them are problems).
 */
export function ledgerRow(record: Record<string, unknown>, index: number, line: number): {row?: LedgerRow; problems: Problem[]; unknown: string[]} {
  const problems: Problem[] = []
  const unknown: string[] = []
  const values: Record<string, string | undefined> = {}
  for (const [key, raw] of Object.entries(record)) {
    if ((LEDGER_COLUMNS as readonly string[]).includes(key)) values[key] = cell(raw)
    else if (nearMiss(key)) problems.push({field: key, message: unknownColumn(key, LEDGER_COLUMNS)})
    else unknown.push(key)
  }
  const kind = kindOf(values, problems)
  if (!kind) return {problems, unknown}
  for (const column of LEDGER_COLUMNS) {
    if (values[column] !== undefined && !KIND_COLUMNS[kind].includes(column)) problems.push({field: column, message: `a ${KIND_NAMES[kind]} has no ${column}`})
  }
  const numberColumn = NUMBER_COLUMN[kind]
  const number = values[numberColumn]
  if (number === undefined) problems.push({field: numberColumn, message: `is required for a ${KIND_NAMES[kind]}`})
  // a payment's number is its bizOrderNo: checked once
  for (const column of new Set([numberColumn, 'bizOrderNo'] as const)) {
    const text = values[column]
    if (text === undefined) continue
    if (text.length > MAX_NUMBER) problems.push({field: column, message: `must be at most ${MAX_NUMBER} characters`})
    else problems.push(...unsendableFields(text, column))
  }
  let channel: string | undefined
  if (kind === 'transfer') {
    channel = values.channel
    if (channel === undefined) problems.push({field: 'channel', message: 'is required for a transfer'})
    else if (!(TRANSFER_CHANNELS as readonly string[]).includes(channel)) problems.push({field: 'channel', message: `"${channel}" is not one of ${TRANSFER_CHANNELS.join(', ')}`})
  }
  let amount: number | undefined
  if (values.amount !== undefined && values.yuan !== undefined) problems.push({field: 'amount', message: 'give amount (cents) or yuan, not both'})
  else if (values.yuan !== undefined) {
    try {
      amount = yuanToCents(values.yuan)
    } catch (error) {
      problems.push({field: 'yuan', message: (error as MoneyFormatError).message})
    }
  } else if (values.amount !== undefined) amount = cents('amount', values.amount, problems)
  else problems.push({field: 'amount', message: 'no amount (or yuan)'})
  const status = values.status?.toLowerCase()
  if (status === undefined) problems.push({field: 'status', message: `is required: a word of the ${KIND_NAMES[kind]}'s status (${STATUS_WORDS[kind].join(', ')})`})
  else if (!STATUS_WORDS[kind].includes(status)) problems.push({field: 'status', message: `"${values.status}" is not a ${KIND_NAMES[kind]} status: one of ${STATUS_WORDS[kind].join(', ')}`})
  const refunded = kind === 'pay' && values.refunded !== undefined ? cents('refunded', values.refunded, problems) : undefined
  if (problems.length > 0 || number === undefined || amount === undefined || status === undefined) return {problems, unknown}
  const row: LedgerRow = {index, line, kind, number, amount, status}
  if (kind === 'refund' && values.bizOrderNo !== undefined) row.bizOrderNo = values.bizOrderNo
  if (channel !== undefined) row.channel = channel
  if (refunded !== undefined) row.refunded = refunded
  return {row, problems, unknown}
}
