// A platform record (an order, a result) as label/value rows with money and status words, and
// its times in the GMT+8 form every table shows (--json keeps what the platform sent).
import {display, money, status, time, yuanOfCents, type Cell} from './format.js'

const MONEY = new Set(['amount', 'realAmount', 'refundableBalance', 'orderAmount'])
const STATUS = new Set(['status', 'orderStatus', 'refundStatus', 'fundStatus'])

/** One field as a cell: money and statuses glossed, times (`createTime`, `finishTime`, ...) in GMT+8. */
export function fieldCell(key: string, value: unknown): Cell {
  if (MONEY.has(key)) return money(value)
  if (STATUS.has(key)) return status(value)
  return key.endsWith('Time') ? time(value) : display(value)
}

/**
 * `inYuan`: money in yuan alone, labelled so (`amount (yuan)  12.50`), for the compatibility
 * module, whose protocol speaks yuan while the data of its answers holds cents.
 */
export function recordRows(data: unknown, skip: string[] = [], {inYuan = false} = {}): [string, Cell][] {
  if (data === null || typeof data !== 'object') return [['data', display(data)]]
  return Object.entries(data as Record<string, unknown>)
    .filter(([key]) => !skip.includes(key))
    .map(([key, value]) => (inYuan && MONEY.has(key) ? [`${key} (yuan)`, yuanOfCents(value)] : [key, fieldCell(key, value)]))
}
