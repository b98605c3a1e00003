// `unipay lookup NUMBER`: the lookups its shape suggests, then the rest (shapes.ts), until one
// matches (or, with `all`, every one); then what hangs off each match: an order's refunds (the
// management API, every page, exact matches only), its gateway order, the order a refund or a
// split belongs to, and on the local sandbox every callback sent for them. Built from the query
// services and the management client; returns the story, never prints.
import {SessionError, type ManagementConfig} from '../../client/management.js'
import {NotFoundError, PlatformError, SignatureError, UnipayError, UsageError} from '../../errors.js'
import {controlCall} from '../../local-sandbox/control.js'
import type {JsonObject} from '../../protocol/json.js'
import type {Notification} from '../../protocol/notifications.js'
import {parseGmt8} from '../../protocol/time.js'
import {allRefunds, exactRefunds} from '../mch.js'
import {ask, describeAsk, type Answered, type AskContext, type Outcome} from './asks.js'
import {text, type RecordKind, type StoryRecord} from './record.js'
import {asksFor, isDirectPayment, type Ask, type NumberKind} from './shapes.js'
import {nextSteps, timeline, type NextStep, type TimelineEvent} from './timeline.js'

export type {AnswerState} from './asks.js'
export type {RecordKind, StoryRecord} from './record.js'
export type {NumberKind} from './shapes.js'
export type {NextStep, TimelineEvent} from './timeline.js'

export interface Story {
  number: string
  /** The kinds the number matched, in the order tried, each with its record. */
  matched: {kind: NumberKind; record: number}[]
  /** The lookups that found nothing, with the platform's words. */
  tried: string[]
  records: StoryRecord[]
  /** Everything that happened, oldest first, in GMT+8. */
  timeline: TimelineEvent[]
  nextSteps: NextStep[]
  /** What could not be fetched, and how to get it. */
  warnings: string[]
  /** Answers that failed verification without a record to show (an error answer). */
  unbelievable: string[]
}


interface LookupOptions {
  /** A bizTransferNo's channel: one lookup instead of one per channel. */
  channel?: string
  /** Try every kind and show each match. */
  all?: boolean
  /** A suggested command line, runnable as given: the profile's flags added when `api` (not for `sandbox` commands). */
  command: (words: string[], api: boolean) => string
}

const MANAGEMENT_REFUNDS = '/mch/order/refund/page'
const CONTROL_NOTIFICATIONS = '/_sandbox/notifications'
/** A page of refunds: an order with fewer than this many is read in one call. */
const REFUND_PAGE_SIZE = 100

/** The number a record is known by, to keep it once. */
function keyOf(kind: RecordKind, data: JsonObject): string {
  const field = {payment: 'orderNo', gateway: 'orderNo', refund: 'refundNo', transfer: 'transferNo', alloc: 'allocNo', callback: 'id'}[kind]
  return `${kind} ${text(data[field])}`
}

function matchedKind(which: Ask, data: JsonObject, number: string): NumberKind {
  if (which.query === 'pay' || which.query === 'gateway') {
    if (which.field === 'bizOrderNo') return 'bizOrderNo'
    if (text(data.tradeNo) === number) return 'tradeNo'
    return which.query === 'gateway' ? 'gateway orderNo' : 'orderNo'
  }
  return which.field
}

const RECORD_OF: Record<Ask['query'], RecordKind> = {pay: 'payment', gateway: 'gateway', refund: 'refund', transfer: 'transfer', alloc: 'alloc'}

class Builder {
  readonly story: Story
  constructor(
    readonly deps: AskContext,
    readonly options: LookupOptions,
    number: string,
  ) {
    this.story = {number, matched: [], tried: [], records: [], timeline: [], nextSteps: [], warnings: [], unbelievable: []}
  }

  /** Adds a record once; a signed answer replaces an unsigned one of the same record. */
  add(kind: RecordKind, answered: Answered, matched?: NumberKind): number {
    const key = keyOf(kind, answered.data)
    const at = this.story.records.findIndex((record) => keyOf(record.kind, record.data) === key)
    if (at === -1) return this.story.records.push({kind, ...answered, ...(matched ? {matched} : {})}) - 1
    const existing = this.story.records[at]
    if (existing.state === 'unsigned' && answered.state !== 'unsigned') this.story.records[at] = {kind, ...answered, matched: matched ?? existing.matched}
    else if (matched && !existing.matched) existing.matched = matched
    return at
  }

  find(kind: RecordKind, field: string, value: string): StoryRecord | undefined {
    return value ? this.story.records.find((record) => record.kind === kind && text(record.data[field]) === value) : undefined
  }

  warn(message: string): void {
    if (!this.story.warnings.includes(message)) this.story.warnings.push(message)
  }

  /**
   * A lookup for a record that hangs off one already found: what cannot be fetched is a
   * warning, never the end of the story.
   */
  async related(what: string, which: Ask, number: string): Promise<StoryRecord | undefined> {
    let outcome: Outcome
    try {
      outcome = await ask(this.deps, which, number)
    } catch (error) {
      if (!(error instanceof UnipayError)) throw error
      this.warn(`${what} not shown: ${error.message}`)
      return undefined
    }
    if ('unbelievable' in outcome) {
      this.story.unbelievable.push(`${describeAsk(which)} ${number}: ${outcome.unbelievable}`)
      return undefined
    }
    if ('missing' in outcome || 'several' in outcome) return undefined
    if (outcome.warning) this.warn(outcome.warning)
    return this.story.records[this.add(RECORD_OF[which.query], outcome.found)]
  }
}

/** The lookups, until one matches (every one with `all`). */
async function match(b: Builder): Promise<void> {
  const {story} = b
  for (const which of asksFor(story.number, b.options.channel).asks) {
    if (story.matched.length > 0 && !b.options.all) break
    const outcome = await ask(b.deps, which, story.number)
    if ('found' in outcome) {
      if (outcome.warning) b.warn(outcome.warning)
      const kind = matchedKind(which, outcome.found.data, story.number)
      story.matched.push({kind, record: b.add(RECORD_OF[which.query], outcome.found, kind)})
    } else if ('missing' in outcome) story.tried.push(`${describeAsk(which)}: ${outcome.missing}`)
    else if ('several' in outcome) await severalRefunds(b, which, outcome.several)
    else {
      story.tried.push(`${describeAsk(which)}: the answer failed verification`)
      story.unbelievable.push(`${describeAsk(which)} ${story.number}: ${outcome.unbelievable}`)
    }
  }
  if (story.matched.length > 0) return
  if (story.unbelievable.length > 0) {
    throw new SignatureError(`nothing matched ${story.number} that can be believed: ${story.unbelievable.join('; ')}`)
  }
  const error = new NotFoundError(`no order, refund, transfer or split has the number ${story.number}`)
  error.hint = `tried:\n${story.tried.map((line) => `  ${line}`).join('\n')}`
  error.details = {number: story.number, tried: story.tried}
  throw error
}

/**
 * A bizRefundNo that several orders hold: each of its refunds, found by the management API
 * (exact matches of every page) and then asked of the signed API by its refundNo, as matches.
 * Without a session they cannot be told apart: said, with the login that tells them, never
 * "nothing has the number".
 */
async function severalRefunds(b: Builder, which: Ask, refused: PlatformError): Promise<void> {
  const {story} = b
  const config = managementConfig(b)
  const login = b.options.command(['mch', 'login', '--account', 'ACCOUNT'], true)
  if (!config.token) {
    refused.hint = `several orders hold refund ${story.number}: log in for lookup to show each (${login}), or look up its order's number`
    throw refused
  }
  let refunds
  try {
    refunds = await exactRefunds(config, {bizRefundNo: story.number})
  } catch (error) {
    if (!(error instanceof UnipayError)) throw error
    refused.hint = `several orders hold refund ${story.number}, and the management API that tells them apart did not answer: ${error.message}`
    throw refused
  }
  for (const refund of refunds) {
    const record = await b.related(`refund ${text(refund.refundNo)}`, {query: 'refund', field: 'refundNo'}, text(refund.refundNo))
    if (record) story.matched.push({kind: which.field, record: story.records.indexOf(record)})
  }
  if (refunds.length === 0) story.tried.push(`${describeAsk(which)}: ${refused.platformMessage} (${refused.code}), and the management API lists none of them`)
}

/** The management API as the profile reaches it (a token only with a `mch login` session). */
function managementConfig(b: Builder): ManagementConfig {
  const {client, profile} = b.deps.context
  return {baseUrl: client.baseUrl, token: profile.settings.token, debug: client.debug, timeoutMs: client.timeoutMs}
}

/** A payment order's refunds (the management API: its filters match by substring, so every page, exact matches only). */
async function refundsOf(b: Builder, payment: StoryRecord): Promise<void> {
  const status = text(payment.data.status)
  // refunds need a paid order (notes §4); an order never paid has none to ask for
  if (['wait', 'progress', 'processing', 'init', 'close', 'cancel', 'fail', 'timeout'].includes(status)) return
  const config = managementConfig(b)
  const login = b.options.command(['mch', 'login', '--account', 'ACCOUNT'], true)
  if (!config.token) return b.warn(`refunds not shown, no session: ${login}`)
  const tradeNo = text(payment.data.tradeNo)
  const [field, value] = tradeNo ? ['tradeNo', tradeNo] : ['bizOrderNo', text(payment.data.bizOrderNo)]
  try {
    const page = await allRefunds(config, {[field]: value}, {size: REFUND_PAGE_SIZE})
    for (const record of page.records) if (text(record[field]) === value) b.add('refund', {state: 'unsigned', source: MANAGEMENT_REFUNDS, data: record})
  } catch (error) {
    if (error instanceof SessionError) return b.warn(`refunds not shown: ${error.message}; ${login}`)
    if (!(error instanceof UnipayError)) throw error
    b.warn(`refunds not shown: ${error.message}`)
  }
}

/** What hangs off each record the number matched. */
async function context(b: Builder, record: StoryRecord): Promise<void> {
  const {data} = record
  const bizOrderNo = text(data.bizOrderNo)
  const tradeNo = text(data.tradeNo)
  if (record.kind === 'payment') {
    await refundsOf(b, record)
    // pay and gateway orders share one bizOrderNo space (notes §4): only a gateway order's trade has one
    if (!isDirectPayment(text(data.orderNo)) && !b.find('gateway', 'bizOrderNo', bizOrderNo)) {
      await b.related('gateway order', {query: 'gateway', field: 'bizOrderNo'}, bizOrderNo)
    }
  } else if (record.kind === 'gateway') {
    const paid = text(data.status) === 'paid' || text(data.fundStatus) === 'success'
    if (paid && !b.find('payment', 'bizOrderNo', bizOrderNo)) {
      const payment = await b.related('payment order', {query: 'pay', field: 'orderNo'}, tradeNo || text(data.orderNo))
      if (payment) await refundsOf(b, payment)
    }
  } else if ((record.kind === 'refund' || record.kind === 'alloc') && !b.find('payment', 'tradeNo', tradeNo) && !b.find('payment', 'bizOrderNo', bizOrderNo)) {
    // the order it belongs to, by its trade number (notes §3), else by the merchant's number
    if (tradeNo) await b.related('the order it belongs to', {query: 'pay', field: 'orderNo'}, tradeNo)
    else if (bizOrderNo) await b.related('the order it belongs to', {query: 'pay', field: 'bizOrderNo'}, bizOrderNo)
  }
}

/** The numbers the records are known by, which a callback names. */
function numbersOf(records: StoryRecord[]): Set<string> {
  const fields = ['orderNo', 'tradeNo', 'bizOrderNo', 'refundNo', 'transferNo', 'allocNo']
  const numbers = new Set<string>()
  for (const record of records) for (const field of fields) if (text(record.data[field])) numbers.add(text(record.data[field]))
  return numbers
}

/** Whether a callback is about one of these numbers, for this merchant. */
function about(callback: Notification, numbers: Set<string>, mchNo: string | undefined): boolean {
  if (callback.body === '') {
    // easy_pay: a GET whose query holds the order's numbers
    let query: URLSearchParams
    try {
      query = new URL(callback.url).searchParams
    } catch {
      return false
    }
    return (!mchNo || query.get('pid') === mchNo) && [query.get('trade_no'), query.get('out_trade_no')].some((n) => n !== null && numbers.has(n))
  }
  let body: {mchNo?: unknown; data?: Record<string, unknown>}
  try {
    body = JSON.parse(callback.body) as {mchNo?: unknown; data?: Record<string, unknown>}
  } catch {
    return false
  }
  if (mchNo && body.mchNo !== mchNo) return false
  return ['orderNo', 'tradeNo', 'bizOrderNo', 'refundNo', 'transferNo', 'allocNo'].some((field) => typeof body.data?.[field] === 'string' && numbers.has(body.data[field]))
}

/** On the local sandbox: the callbacks sent for the story's records, and its clock (for an order still in progress). */
async function fromTheSandbox(b: Builder): Promise<Date | undefined> {
  const {client, profile} = b.deps.context
  // the local profile's own sandbox, the one its address was taken from
  const runtime = profile.sources.baseUrl === 'local sandbox' ? profile.sandbox : undefined
  if (!runtime) return undefined
  const debug = client.debug
  try {
    debug?.(`GET ${runtime.url}${CONTROL_NOTIFICATIONS} (the local sandbox's control API: callbacks)`)
    const callbacks = await controlCall<Notification[]>(runtime, 'GET', 'notifications')
    const numbers = numbersOf(b.story.records)
    for (const callback of callbacks.sort((x, y) => x.createdAt.localeCompare(y.createdAt))) {
      if (about(callback, numbers, client.mchNo)) b.add('callback', {state: 'unsigned', source: CONTROL_NOTIFICATIONS, data: callback as unknown as JsonObject})
    }
    const inProgress = b.story.records.some((record) => record.kind === 'payment' && ['progress', 'processing'].includes(text(record.data.status)))
    if (!inProgress) return undefined
    debug?.(`GET ${runtime.url}/_sandbox/clock (the local sandbox's control API: its clock)`)
    return parseGmt8((await controlCall<{now: string}>(runtime, 'GET', 'clock')).now)
  } catch (error) {
    if (!(error instanceof UnipayError)) throw error
    b.warn(`the local sandbox's callbacks not shown: ${error.message}`)
    return undefined
  }
}

/** Longer than any field of the platform that names a record. */
const MAX_NUMBER = 100

/** The number without the spaces a copy and paste brings; refused (exit 2) when it cannot be any number. */
function checkedNumber(given: string): string {
  const number = given.trim()
  const problem =
    number === ''
      ? 'is empty'
      : number.length > MAX_NUMBER
        ? `is ${number.length} characters long; no number of the platform is longer than ${MAX_NUMBER}`
        : // eslint-disable-next-line no-control-regex -- finding control characters is the point
          /[\u0000-\u001f\u007f-\u009f]/.test(number)
          ? 'holds a control character'
          : undefined
  if (problem) throw new UsageError('invalid input', [{field: 'NUMBER', message: problem}])
  return number
}

export async function lookup(deps: AskContext, given: string, options: LookupOptions): Promise<Story> {
  const b = new Builder(deps, options, checkedNumber(given))
  await match(b)
  for (const {record} of [...b.story.matched]) await context(b, b.story.records[record])
  const sandboxNow = await fromTheSandbox(b)
  b.story.timeline = timeline(b.story.records)
  b.story.nextSteps = nextSteps(b.story.records, sandboxNow, options.command)
  return b.story
}
