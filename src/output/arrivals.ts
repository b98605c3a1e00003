// `listen` output: one row per arrival on a terminal (fixed columns, so rows printed one at a
// time line up), one JSON line per arrival when piped.
import {printable} from '../protocol/printable.js'
import {formatGmt8} from '../protocol/time.js'
import type {Arrival} from '../services/listen.js'
import {money, shown} from './format.js'
import {displayWidth, terminalWidth, truncate} from './table.js'

const COLUMNS: [header: string, width: number][] = [
  ['GMT+8', 8],
  ['PROTOCOL', 8],
  ['EVENT', 16],
  ['STATUS', 13],
  ['AMOUNT', 16],
  ['VERIFIED', 8],
  ['ANSWER', 11],
]
// Where the NUMBERS column starts: the fixed columns and a space after each.
const NUMBERS_AT = COLUMNS.reduce((sum, [, width]) => sum + width + 1, 0)

// Every value here but the time came from the sender: one line each, so none can fake a row.
const oneLine = (text: string) => printable(text.replace(/\s+/g, ' ').trim())
// and at most this many columns on the row (the JSON line and --print-body have it whole)
const MAX_VALUE_WIDTH = 40
const cell = (text: string) => truncate(oneLine(text), MAX_VALUE_WIDTH)
const cells = (values: string[]) => values.map((value, i) => value.padEnd(COLUMNS[i][1])).join(' ')

export function arrivalHeader(): string {
  return `${cells(COLUMNS.map(([header]) => header))} NUMBERS`
}

/** Business numbers (`key=value`), as many a line as fit `room` columns. */
function numberLines(numbers: string[], room: number): string[] {
  const lines: string[] = []
  for (const number of numbers) {
    const last = lines.at(-1)
    if (last !== undefined && displayWidth(last) + 1 + displayWidth(number) <= room) lines[lines.length - 1] = `${last} ${number}`
    else lines.push(number)
  }
  return lines
}

/**
 * The NUMBERS column: beside the fixed columns, continued under it; on a terminal too narrow
 * for a number there, on lines of their own below the row. The terminal never wraps a row.
 */
function numbersColumn(numbers: string[], width: number): {first: string; more: string[]} {
  if (numbers.length === 0) return {first: '-', more: []}
  const room = width - NUMBERS_AT
  if (numbers.every((number) => displayWidth(number) <= room)) {
    const [first, ...more] = numberLines(numbers, room)
    return {first, more: more.map((line) => `${' '.repeat(NUMBERS_AT)}${line}`)}
  }
  return {first: '', more: numberLines(numbers, width - 2).map((line) => `  ${line}`)}
}

export function arrivalRow(arrival: Arrival, printBody: boolean, width = terminalWidth()): string {
  const {answer, forward} = arrival
  const answerText = answer.body.length <= 7 ? `${answer.status} ${oneLine(answer.body)}` : String(answer.status)
  const numbers = Object.entries(arrival.numbers).map(([key, value]) => `${cell(key)}=${cell(value)}`)
  const why = arrival.reason ?? (forward?.error ? `forward to ${forward.url} failed: ${forward.error}` : undefined)
  const {first, more} = numbersColumn(numbers, width)
  const lines = [
    `${cells([
      formatGmt8(new Date(arrival.time)).slice(11),
      arrival.protocol,
      cell(arrival.event ?? '-'),
      cell(arrival.status ?? '-'),
      arrival.amount === undefined ? '-' : cell(shown(money(arrival.amount), true)),
      arrival.verified ? 'yes' : 'NO',
      answerText,
    ])} ${first}`.trimEnd(),
    ...more,
    ...(why ? [`  ${oneLine(why)}`] : []),
    ...(printBody ? [`  ${oneLine(arrival.rawBody)}`] : []),
  ]
  return lines.join('\n')
}

/**
 * The record as one JSON line; the raw body only when asked for. Callback values are strings
 * by the protocol, and `amount` stays the string received: `amountCents` beside it is the
 * number, for scripts.
 */
export function arrivalJson(arrival: Arrival, printBody: boolean): string {
  const {rawBody, ...rest} = arrival
  const cents = arrival.amount !== undefined && /^\d{1,15}$/.test(arrival.amount) ? {amountCents: Number(arrival.amount)} : {}
  return JSON.stringify({...(printBody ? arrival : rest), ...cents})
}
