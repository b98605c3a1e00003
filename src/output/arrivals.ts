// `listen` output: one row per arrival on a terminal (fixed columns, so rows printed one at a
// time line up), one JSON line per arrival when piped.
import {printable} from '../protocol/printable.js'
import {formatGmt8} from '../protocol/time.js'
import type {Arrival} from '../services/listen.js'
import {money, shown} from './format.js'
import {displayWidth, terminalWidth, truncate} from './table.js'

// Every value here but the time came from the sender: one line each, so none can fake a row.
const oneLine = (text: string) => printable(text.replace(/\s+/g, ' ').trim())
// and at most this many columns on the row (the JSON line and --print-body have it whole)
const MAX_VALUE_WIDTH = 40
const cell = (text: string) => truncate(oneLine(text), MAX_VALUE_WIDTH)

interface Column {
  header: string
  width: number
  value: (arrival: Arrival) => string
}

const TIME: Column = {header: 'GMT+8', width: 8, value: (arrival) => formatGmt8(new Date(arrival.time)).slice(11)}
const PROTOCOL: Column = {header: 'PROTOCOL', width: 8, value: (arrival) => arrival.protocol}
const EVENT: Column = {header: 'EVENT', width: 16, value: (arrival) => cell(arrival.event ?? '-')}
/** Without a PROTOCOL column: an easy_pay notification (it has no event) says easy_pay here. */
const EVENT_OR_PROTOCOL: Column = {...EVENT, value: (arrival) => cell(arrival.event ?? arrival.protocol)}
const REST: Column[] = [
  {header: 'STATUS', width: 13, value: (arrival) => cell(arrival.status ?? '-')},
  {header: 'AMOUNT', width: 16, value: (arrival) => (arrival.amount === undefined ? '-' : cell(shown(money(arrival.amount), true)))},
  {header: 'VERIFIED', width: 8, value: (arrival) => (arrival.verified ? 'yes' : 'NO')},
  {
    header: 'ANSWER',
    width: 11,
    value: ({answer}) => (answer.body.length <= 7 ? `${answer.status} ${oneLine(answer.body)}` : String(answer.status)),
  },
]
const FULL = [TIME, PROTOCOL, EVENT, ...REST]
// By importance, PROTOCOL goes first: the event tells a system callback, and easy_pay says so under EVENT.
const COMPACT = [TIME, EVENT_OR_PROTOCOL, ...REST]

// Where the NUMBERS column starts: the fixed columns and a space after each.
const numbersAt = (columns: Column[]) => columns.reduce((sum, {width}) => sum + width + 1, 0)
/** The fixed columns that fit the width (80 columns has no room for PROTOCOL). */
const columnsFor = (width: number) => (width >= numbersAt(FULL) - 1 ? FULL : COMPACT)
const cells = (columns: Column[], values: string[]) => values.map((value, i) => value.padEnd(columns[i].width)).join(' ')

/** The header line; NUMBERS only when it fits beside the fixed columns (else the numbers go below each row). */
export function arrivalHeader(width = terminalWidth()): string {
  const columns = columnsFor(width)
  const header = cells(columns, columns.map((column) => column.header))
  return width - numbersAt(columns) >= 'NUMBERS'.length ? `${header} NUMBERS` : header.trimEnd()
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
function numbersColumn(numbers: string[], width: number, at: number): {first: string; more: string[]} {
  if (numbers.length === 0) return {first: '-', more: []}
  const room = width - at
  if (numbers.every((number) => displayWidth(number) <= room)) {
    const [first, ...more] = numberLines(numbers, room)
    return {first, more: more.map((line) => `${' '.repeat(at)}${line}`)}
  }
  return {first: '', more: numberLines(numbers, width - 2).map((line) => `  ${line}`)}
}

export function arrivalRow(arrival: Arrival, printBody: boolean, width = terminalWidth()): string {
  const {forward} = arrival
  const columns = columnsFor(width)
  const numbers = Object.entries(arrival.numbers).map(([key, value]) => `${cell(key)}=${cell(value)}`)
  const why = arrival.reason ?? (forward?.error ? `forward to ${forward.url} failed: ${forward.error}` : undefined)
  const {first, more} = numbersColumn(numbers, width, numbersAt(columns))
  const lines = [
    `${cells(columns, columns.map((column) => column.value(arrival)))} ${first}`.trimEnd(),
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
