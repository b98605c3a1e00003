// `lookup`'s story on a terminal (one screen at 80 columns: each record's key fields, its
// refunds and callbacks as tables, a timeline in GMT+8, the next steps) and piped (every field
// of every record as `section<TAB>number<TAB>field<TAB>value` lines, raw values).
import {attemptOutcome, type Notification} from '../protocol/notifications.js'
import {printableValue} from '../protocol/printable.js'
import type {JsonObject} from '../protocol/json.js'
import type {NumberKind, RecordKind, Story, StoryRecord} from '../services/lookup/story.js'
import {callbackRows} from './callbacks.js'
import {allocYuan, display, time, type Cell} from './format.js'
import {fieldCell} from './record.js'
import {REFUND_TABLE, refundTable} from './refunds.js'
import {renderRecord, renderRows, terminalWidth, wrapWords} from './table.js'

const NAMES: Record<RecordKind, [noun: string, number: string]> = {
  payment: ['payment order', 'orderNo'],
  gateway: ['gateway order', 'orderNo'],
  refund: ['refund', 'refundNo'],
  transfer: ['transfer', 'transferNo'],
  alloc: ['split', 'allocNo'],
  callback: ['callback', 'id'],
}

const numberOf = (record: StoryRecord) => display(record.data[NAMES[record.kind][1]])
const nameOf = (record: StoryRecord) => `${NAMES[record.kind][0]} ${numberOf(record)}`

/** What a terminal shows of each record, in this order (--json and pipes have every field). */
const SCREEN_FIELDS: Record<Exclude<RecordKind, 'callback'>, string[]> = {
  payment: ['bizOrderNo', 'tradeNo', 'title', 'method', 'status', 'refundStatus', 'amount', 'realAmount', 'refundableBalance', 'createTime', 'payTime', 'closeTime', 'expiredTime', 'errorMsg'],
  gateway: ['bizOrderNo', 'tradeNo', 'gatewayType', 'title', 'method', 'status', 'fundStatus', 'amount', 'payTime', 'expiredTime', 'errorMsg'],
  refund: ['bizRefundNo', 'tradeNo', 'bizOrderNo', 'amount', 'orderAmount', 'status', 'reason', 'createTime', 'finishTime', 'errorMsg'],
  transfer: ['bizTransferNo', 'channel', 'title', 'amount', 'status', 'outTransferNo', 'finishTime', 'errorMsg'],
  alloc: ['bizAllocNo', 'tradeNo', 'bizOrderNo', 'title', 'amount', 'status', 'finishTime', 'errorMsg'],
}

const SOURCES: Record<string, string> = {
  '/mch/order/refund/page': 'from the management API, which signs nothing',
  '/_sandbox/notifications': 'from the local sandbox, which signs nothing about them',
}

/** How far a record can be believed, in words. */
function stateOf(record: StoryRecord): string {
  if (record.state === 'verified') return '✓ verified'
  if (record.state === 'failed verification') return `✗ FAILED VERIFICATION: ${record.problem ?? ''}`
  return `unsigned (${SOURCES[record.source] ?? record.source})`
}

/** Prose fitted to the width, each line indented (a long word, a number, is never cut: it is wrapped). */
const prose = (text: string, width: number, indent = 0) => wrapWords(printableValue(text), Math.max(width - indent, 20)).map((line) => `${' '.repeat(indent)}${line}`)

/** The first line: which kind the number matched, for each match. */
export function matchedLines(story: Story): string[] {
  return story.matched.map(({kind, record}) => `${story.number} is the ${kind} of ${nameOf(story.records[record])}`)
}

function recordBlock(record: StoryRecord, width: number): string {
  const kind = record.kind as Exclude<RecordKind, 'callback'>
  // once paid, when it would have expired no longer matters
  const shown = SCREEN_FIELDS[kind].filter((field) => display(record.data[field]) !== '' && !(field === 'expiredTime' && display(record.data.payTime) !== ''))
  const rows = shown.map((field): [string, Cell] =>
    // a split's amounts are in the unit its platform takes (yuan by the spec), not cents
    kind === 'alloc' && field === 'amount' ? ['amount (yuan)', allocYuan(record.data.amount, record.unit ?? 'yuan')] : [field, fieldCell(field, record.data[field])],
  )
  return [...prose(`${NAMES[kind][0][0].toUpperCase()}${nameOf(record).slice(1)} · ${stateOf(record)}`, width), renderRecord(rows, true, width)].join('\n')
}

function section(title: string, body: string): string {
  return `${title}\n${body}`
}

/** The story on a terminal, fitted to `width`. */
function screen(story: Story): string {
  const width = terminalWidth()
  const {records} = story
  const listed = (record: StoryRecord) => record.source === '/mch/order/refund/page' || record.kind === 'callback'
  const parts = [matchedLines(story).flatMap((text) => prose(text, width)).join('\n')]
  for (const record of records) if (!listed(record)) parts.push(recordBlock(record, width))
  const refunds = records.filter((record) => record.kind === 'refund' && record.source === '/mch/order/refund/page')
  if (refunds.length) {
    const {headers, rows} = refundTable(refunds.map((r) => r.data), true)
    // the order is the one above: its number would only take room
    const importance = REFUND_TABLE.importance!.filter((name) => name !== 'bizOrderNo')
    const table = renderRows(headers, rows, true, {...REFUND_TABLE, importance, width, columns: undefined})
    parts.push(section(prose(`Refunds: ${refunds.length} · ${stateOf(refunds[0])}`, width).join('\n'), table))
  }
  const callbacks = records.filter((record) => record.kind === 'callback')
  if (callbacks.length) {
    const {headers, rows} = callbackRows(callbacks.map((r) => r.data as unknown as Notification), true)
    const table = renderRows(headers, rows, true, {width, importance: ['id', 'event', 'state', 'last answer', 'attempts', 'next attempt', 'url']})
    parts.push(section(prose(`Callbacks: ${callbacks.length} · ${stateOf(callbacks[0])}`, width).join('\n'), table))
  }
  if (story.timeline.length) {
    const rows = story.timeline.map((event): Cell[] => [time(event.time), event.due ? `${event.event} (due)` : event.event])
    parts.push(section('Timeline', renderRows(['time', 'event'], rows, true, {width, wrap: ['event']})))
  }
  if (story.nextSteps.length) {
    // a command stays on one line, to be copied whole
    const steps = story.nextSteps.flatMap((step) => [...prose(step.why, width, 2), ...(step.command ? [`    ${step.command}`] : [])])
    parts.push(section('Next steps', steps.join('\n')))
  }
  if (story.unbelievable.length) parts.push(section('Answers that failed verification', story.unbelievable.flatMap((text) => prose(`✗ ${text}`, width, 2)).join('\n')))
  return parts.join('\n\n')
}

const line = (...cells: string[]) => cells.map((cell) => printableValue(cell)).join('\t')

/** Every field of a record as a line: a callback's fields as its table has them, not its body. */
function recordLines(record: StoryRecord): string[] {
  const number = numberOf(record)
  const lines = [line(record.kind, number, 'answer', record.state)]
  if (record.problem) lines.push(line(record.kind, number, 'problem', record.problem))
  let data: JsonObject = record.data
  if (record.kind === 'callback') {
    const callback = record.data as unknown as Notification
    const last = callback.attempts.at(-1)
    data = {id: callback.id, event: callback.event, url: callback.url, state: callback.state, attempts: callback.attempts.length, 'last answer': last ? attemptOutcome(last) : ''}
  }
  for (const [field, value] of Object.entries(data)) lines.push(line(record.kind, number, field, display(value)))
  return lines
}

/** Piped: one tab-separated line per fact, the section first (matched, a record's kind, timeline, next). */
function piped(story: Story): string {
  const lines = story.matched.map(({kind, record}: {kind: NumberKind; record: number}) => line('matched', kind, story.records[record].kind, numberOf(story.records[record])))
  for (const record of story.records) lines.push(...recordLines(record))
  for (const event of story.timeline) lines.push(line('timeline', event.time, story.records[event.record].kind, event.due ? `${event.event} (due)` : event.event))
  story.nextSteps.forEach((step, i) => {
    lines.push(line('next', String(i + 1), 'why', step.why))
    if (step.command) lines.push(line('next', String(i + 1), 'command', step.command))
  })
  return lines.join('\n')
}

export function renderStory(story: Story, tty: boolean): string {
  return tty ? screen(story) : piped(story)
}
