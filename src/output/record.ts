// A platform record (an order, a result) as label/value rows with money and status words.
import {display, money, status} from './format.js'

const MONEY = new Set(['amount', 'realAmount', 'refundableBalance', 'orderAmount'])
const STATUS = new Set(['status', 'orderStatus', 'refundStatus', 'fundStatus'])

export function recordRows(data: unknown, skip: string[] = []): [string, string][] {
  if (data === null || typeof data !== 'object') return [['data', display(data)]]
  return Object.entries(data as Record<string, unknown>)
    .filter(([key]) => !skip.includes(key))
    .map(([key, value]) => [key, MONEY.has(key) ? money(value) : STATUS.has(key) ? status(value) : display(value)])
}
