// A story's records as what happened, in time order (GMT+8), and the next step where the story
// calls for one. Times are the platform's own: the times its records carry, the creation time
// its numbers carry (shapes.ts), and its clock (a signed answer's resTime; on the local sandbox
// the sandbox's clock, which `sandbox clock advance` moves).
import {STATUS_WORDS} from '../../protocol/enums.js'
import type {JsonObject} from '../../protocol/json.js'
import {centsToYuan} from '../../protocol/money.js'
import {attemptOutcome, type Notification} from '../../protocol/notifications.js'
import {formatGmt8, parseGmt8} from '../../protocol/time.js'
import {isDirectPayment, stampOf} from './shapes.js'
import {text, type RecordKind, type StoryRecord} from './record.js'

export interface TimelineEvent {
  /** `yyyy-MM-dd HH:mm:ss`, GMT+8. */
  time: string
  event: string
  /** The record it is about (its index in the story's records). */
  record: number
  /** Not yet: a callback's next attempt. */
  due?: true
}

export interface NextStep {
  why: string
  /** A command that runs as given. */
  command?: string
}

/** An order in progress longer than this has likely lost its channel's answer: `pay sync` asks for it. */
const SYNC_AFTER_MS = 5 * 60 * 1000

/** A platform time (GMT+8 text, or the management API's ISO 8601) as GMT+8 text; undefined when it is none. */
function gmt8(value: string): string | undefined {
  if (parseGmt8(value)) return value
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined
  return formatGmt8(new Date(value))
}

const word = (status: string) => STATUS_WORDS[status] ?? status
const yuan = (cents: string) => (/^\d{1,19}$/.test(cents) ? `¥${centsToYuan(BigInt(cents))}` : cents)
const reason = (data: JsonObject) => (text(data.errorMsg) ? `: ${text(data.errorMsg)}` : '')

/** When a record was created: its createTime, else the time its number carries. */
function created(data: JsonObject, numberField: string): string | undefined {
  const createTime = gmt8(text(data.createTime))
  if (createTime) return createTime
  const stamp = stampOf(text(data[numberField]))
  return stamp && formatGmt8(stamp)
}

type Events = [time: string | undefined, event: string][]

const EVENTS: Record<RecordKind, (data: JsonObject) => Events> = {
  payment(data) {
    const name = `payment ${text(data.orderNo)}`
    const status = text(data.status)
    const paid = text(data.realAmount) || text(data.amount)
    return [
      // a gateway order's trade (its number the gateway order's) is made when the payer pays: its payTime
      [isDirectPayment(text(data.orderNo)) || text(data.createTime) ? created(data, 'orderNo') : undefined, `${name} created, ${yuan(text(data.amount))}`],
      [gmt8(text(data.payTime)), `${name} paid, ${yuan(paid)}`],
      [gmt8(text(data.closeTime)), `${name} ${word(status)}${reason(data)}`],
      [status === 'timeout' && !text(data.closeTime) ? gmt8(text(data.expiredTime)) : undefined, `${name} expired`],
    ]
  },
  gateway(data) {
    const name = `gateway order ${text(data.orderNo)}`
    return [
      [created(data, 'orderNo'), `${name} created (${text(data.gatewayType) || 'gateway'}), ${yuan(text(data.amount))}`],
      [gmt8(text(data.payTime)), `${name} paid${text(data.method) ? ` with ${text(data.method)}` : ''}`],
      [text(data.status) === 'expired' ? gmt8(text(data.expiredTime)) : undefined, `${name} expired`],
    ]
  },
  refund(data) {
    const name = `refund ${text(data.bizRefundNo) || text(data.refundNo)}`
    return [
      [created(data, 'refundNo'), `${name} requested, ${yuan(text(data.amount))}`],
      [gmt8(text(data.finishTime)), `${name} ${word(text(data.status))}${reason(data)}`],
    ]
  },
  transfer(data) {
    const name = `transfer ${text(data.bizTransferNo) || text(data.transferNo)}`
    return [
      [created(data, 'transferNo'), `${name} made, ${yuan(text(data.amount))} by ${text(data.channel)}`],
      [gmt8(text(data.finishTime)), `${name} ${word(text(data.status))}${reason(data)}`],
    ]
  },
  alloc(data) {
    const name = `split ${text(data.bizAllocNo) || text(data.allocNo)}`
    return [
      [created(data, 'allocNo'), `${name} made`],
      [gmt8(text(data.finishTime)), `${name} ${word(text(data.status))}${reason(data)}`],
    ]
  },
  callback(data) {
    const callback = data as unknown as Notification
    const name = `callback ${callback.event}`
    const events: Events = callback.attempts.map((attempt, i) => [gmt8(attempt.at), `${name} attempt ${i + 1}: ${attemptOutcome(attempt)}`])
    if (callback.state === 'given_up') events.push([gmt8(callback.attempts.at(-1)?.at ?? ''), `${name} given up after ${callback.attempts.length} attempts`])
    return events
  },
}

/** Every event of the records, oldest first (events at the same second in the order of the records). */
export function timeline(records: StoryRecord[]): TimelineEvent[] {
  const events: TimelineEvent[] = []
  records.forEach((record, index) => {
    for (const [time, event] of EVENTS[record.kind](record.data)) if (time) events.push({time, event, record: index})
    const next = record.kind === 'callback' ? (record.data as unknown as Notification).nextAttemptAt : undefined
    if (typeof next === 'number') events.push({time: formatGmt8(new Date(next)), event: `callback ${text(record.data.event)}: next attempt`, record: index, due: true})
  })
  return events.sort((a, b) => a.time.localeCompare(b.time))
}

/**
 * The steps the story calls for: a payment in progress five minutes after it was created, by
 * the platform's clock (`pay sync`: asks the channel); a refund in progress (`refund sync`); a
 * failed refund's reason; a callback the sandbox gave up on (`sandbox callbacks resend`).
 */
export function nextSteps(records: StoryRecord[], sandboxNow: Date | undefined, command: (words: string[], api: boolean) => string): NextStep[] {
  const steps: NextStep[] = []
  for (const {kind, data, resTime} of records) {
    const status = text(data.status)
    if (kind === 'payment' && (status === 'progress' || status === 'processing')) {
      const orderNo = text(data.orderNo)
      const since = created(data, 'orderNo')
      const now = sandboxNow ?? (resTime ? parseGmt8(resTime) : undefined)
      const age = since && now ? now.getTime() - parseGmt8(since)!.getTime() : undefined
      const sync = command(['pay', 'sync', '--order-no', orderNo], true)
      if (age === undefined) steps.push({why: `payment ${orderNo} is in progress (the platform does not say since when): if the payer paid, ask the channel`, command: sync})
      else if (age > SYNC_AFTER_MS) steps.push({why: `payment ${orderNo} is still in progress ${Math.floor(age / 60_000)} minutes after it was created: ask the channel`, command: sync})
    }
    if (kind === 'refund' && status === 'progress') {
      steps.push({why: `refund ${text(data.bizRefundNo)} is in progress: ask the channel`, command: command(['refund', 'sync', '--refund-no', text(data.refundNo)], true)})
    }
    if (kind === 'refund' && status === 'fail') steps.push({why: `refund ${text(data.bizRefundNo)} failed: ${text(data.errorMsg) || 'the platform gives no reason'}`})
    if (kind === 'callback' && text(data.state) === 'given_up') {
      steps.push({why: `the sandbox gave up on callback ${text(data.event)} to ${text(data.url)}`, command: command(['sandbox', 'callbacks', 'resend', text(data.id)], false)})
    }
  }
  return steps
}
