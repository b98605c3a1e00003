// `listen` output: one row per arrival on a terminal (fixed columns, so rows printed one at a
// time line up), one JSON line per arrival when piped.
import {formatGmt8} from '../protocol/time.js'
import type {Arrival} from '../services/listen.js'
import {money} from './format.js'

const COLUMNS: [header: string, width: number][] = [
  ['GMT+8', 8],
  ['PROTOCOL', 8],
  ['EVENT', 16],
  ['STATUS', 13],
  ['AMOUNT', 16],
  ['VERIFIED', 8],
  ['ANSWER', 11],
]

// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed
const oneLine = (text: string) => text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim()
const cells = (values: string[]) => values.map((value, i) => value.padEnd(COLUMNS[i][1])).join(' ')

export function arrivalHeader(): string {
  return `${cells(COLUMNS.map(([header]) => header))} NUMBERS`
}

export function arrivalRow(arrival: Arrival, printBody: boolean): string {
  const {answer, forward} = arrival
  const answerText = answer.body.length <= 7 ? `${answer.status} ${oneLine(answer.body)}` : String(answer.status)
  const numbers = Object.entries(arrival.numbers).map(([key, value]) => `${key}=${value}`)
  const why = arrival.reason ?? (forward?.error ? `forward to ${forward.url} failed: ${forward.error}` : undefined)
  const row = [
    cells([
      formatGmt8(new Date(arrival.time)).slice(11),
      arrival.protocol,
      arrival.event ?? '-',
      arrival.status ?? '-',
      arrival.amount === undefined ? '-' : money(arrival.amount),
      arrival.verified ? 'yes' : 'NO',
      answerText,
    ]),
    numbers.join(' ') || '-',
    ...(why ? [`  ${why}`] : []),
  ].join(' ')
  return printBody ? `${row}\n  ${arrival.rawBody}` : row
}

/** The record as one JSON line; the raw body only when asked for. */
export function arrivalJson(arrival: Arrival, printBody: boolean): string {
  const {rawBody, ...rest} = arrival
  return JSON.stringify(printBody ? arrival : rest)
}
