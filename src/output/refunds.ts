// `refunds list` as a table: every field of the management refund record is a column (notes
// §6), and any field a platform adds comes after them. On a narrow terminal support staff see
// which refund, of which order, how much, its state and, for a failed one, why (the reason
// wraps, or goes under its row when the numbers leave it no room).
import {STATUS_WORDS} from '../protocol/enums.js'
import {display, type Cell} from './format.js'
import {fieldCell} from './record.js'
import type {TableOptions} from './table.js'

export const REFUND_COLUMNS = [
  'id', 'mchNo', 'appId', 'refundNo', 'bizRefundNo', 'tradeNo', 'bizOrderNo', 'outOrderNo', 'outRefundNo', 'title',
  'channel', 'product', 'amount', 'orderAmount', 'currency', 'reason', 'status', 'finishTime', 'errorMsg', 'notifyUrl',
  'attach', 'clientIp', 'storeNo', 'createTime',
]

/** Most important first: what a narrow terminal keeps (80 columns: the refund, its amount and state, its order). */
const IMPORTANCE = ['bizRefundNo', 'amount', 'status', 'bizOrderNo', 'errorMsg', 'createTime', 'refundNo', 'id', 'reason', 'finishTime', 'tradeNo']

export const REFUND_TABLE: Pick<TableOptions, 'importance' | 'wrap'> = {importance: IMPORTANCE, wrap: ['errorMsg']}

/**
 * The refunds as table rows. On a terminal a state is its word alone (`failed`, not `fail
 * (failed)`): a refund's four codes read as words already, and the room goes to its order number.
 */
export function refundTable(records: Record<string, unknown>[], terminal: boolean): {headers: string[]; rows: Cell[][]} {
  const headers = [...REFUND_COLUMNS]
  for (const record of records) for (const key of Object.keys(record)) if (!headers.includes(key)) headers.push(key)
  const cell = (header: string, value: unknown): Cell => (header === 'status' && terminal ? (STATUS_WORDS[display(value)] ?? display(value)) : fieldCell(header, value))
  return {headers, rows: records.map((record) => headers.map((header) => cell(header, record[header])))}
}

/** How many were shown and how to get the rest: "1 of 3 refunds: --page 2, or --all". */
export function pagingNotice(shown: number, total: number, flags: {all?: boolean; page: number; size: number; limit?: number}): string {
  const head = `${shown} of ${total} refunds`
  if (flags.all) return shown < total ? `${head}: stopped at --limit ${flags.limit}; raise it to see more` : head
  const seen = (flags.page - 1) * flags.size + shown
  if (seen >= total) return head
  if (flags.limit !== undefined && shown < Math.min(flags.size, total - (flags.page - 1) * flags.size)) {
    // on the last page the rest is in this page only: a next page would be empty
    if (flags.page * flags.size >= total) return `${head}: --limit ${flags.limit} cut this page; drop it to see the rest`
    return `${head}: --limit ${flags.limit} cut this page; drop it, or --page ${flags.page + 1}, or --all`
  }
  return `${head}: --page ${flags.page + 1}, or --all`
}
