// A platform record (an order, a result) as label/value rows with money and status words, and
// its times in the GMT+8 form every table shows (--json keeps what the platform sent).
import {display, money, status, time, type Cell} from './format.js'

const MONEY = new Set(['amount', 'realAmount', 'refundableBalance', 'orderAmount'])
const STATUS = new Set(['status', 'orderStatus', 'refundStatus', 'fundStatus'])

/** One field as a cell: money and statuses glossed, times (`createTime`, `finishTime`, ...) in GMT+8. */
export function fieldCell(key: string, value: unknown): Cell {
  if (MONEY.has(key)) return money(value)
  if (STATUS.has(key)) return status(value)
  return key.endsWith('Time') ? time(value) : display(value)
}

export function recordRows(data: unknown, skip: string[] = []): [string, Cell][] {
  if (data === null || typeof data !== 'object') return [['data', display(data)]]
  return Object.entries(data as Record<string, unknown>)
    .filter(([key]) => !skip.includes(key))
    .map(([key, value]) => [key, fieldCell(key, value)])
}
