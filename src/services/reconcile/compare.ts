// One ledger row beside the platform's record: asked with the query services (reads, retried on
// transport failure by the pipeline; every answer verified), and what differs classed. A row
// that could not be asked (the platform did not answer) is not compared: --resume asks it again.
import type {ManagementConfig} from '../../client/management.js'
import {SessionError} from '../../client/management.js'
import type {ClientConfig} from '../../client/pipeline.js'
import {PlatformError, SignatureError, TransportError} from '../../errors.js'
import {sameStatus} from '../../protocol/enums.js'
import {centsToYuan} from '../../protocol/money.js'
import type {Health} from '../files/walk.js'
import {exactRefunds} from '../mch.js'
import {queryPayment} from '../pay.js'
import {queryRefund} from '../refund.js'
import {queryTransfer} from '../transfer.js'
import type {Kind, LedgerRow} from './ledger.js'

/** The classes of difference, in the order a row's first difference is named by. */
export const DIFFERENCE_CLASSES = [
  'missing on platform', 'amount differs', 'status differs', 'refunded differs', 'duplicate in ledger', 'ambiguous', 'platform error', 'unverified', 'missing in ledger',
] as const
export type DifferenceClass = (typeof DIFFERENCE_CLASSES)[number]

/** One difference between the ledger and the platform. */
export interface Difference {
  /** The ledger's line; none for a record only the platform holds. */
  line?: number
  kind: Kind
  /** The merchant's number of the record (bizOrderNo, bizRefundNo, bizTransferNo). */
  number: string
  /** The platform's own number of it, when the platform answered one. */
  platformNo?: string
  difference: DifferenceClass
  /** What the ledger and the platform say of what differs: cents, or a status word. */
  ledger?: string
  platform?: string
  /** The money on each side, in cents: the record's amount (refunded cents for `refunded differs`). */
  ledgerCents: number
  platformCents: number
  /** A platform error's code. */
  code?: number
  message: string
}

/** What comparing a row came to: a match, a difference, or no answer (asked again by --resume). */
export type Compared = {matched: true; cents: number} | {difference: Difference} | {notCompared: string}

/** What comparing needs: the signed API, the management API when the run has a session, the run's health. */
export interface Platform {
  client: ClientConfig
  management?: ManagementConfig
  health: Health
}

/** Signed answers of these codes say the record does not exist: 20041 trade not found, 10405 no such data. */
const NOT_FOUND = new Set([20041, 10405])
/** A refund query by bizRefundNo that several orders answer to is refused as invalid (10506): the sandbox does, naming them. */
const SEVERAL = 10506

const NAMES: Record<Kind, string> = {pay: 'payment', refund: 'refund', transfer: 'transfer'}

export async function compareRow(platform: Platform, row: LedgerRow): Promise<Compared> {
  try {
    if (row.kind === 'pay') return await comparePayment(platform, row)
    if (row.kind === 'refund') return await compareRefund(platform, row)
    const answer = await queryTransfer(platform.client, {bizTransferNo: row.number, channel: row.channel})
    platform.health.answered()
    const data = answer.response!.data
    return compared(row, String(data.transferNo ?? ''), {amount: data.amount, status: data.status})
  } catch (error) {
    return failed(platform, row, error)
  }
}

async function comparePayment(platform: Platform, row: LedgerRow): Promise<Compared> {
  const answer = await queryPayment(platform.client, {bizOrderNo: row.number})
  platform.health.answered()
  const data = answer.response!.data
  let refunded: number | undefined
  // the successful refunds of the order, summed from every page of the management API
  if (row.refunded !== undefined) refunded = (await exactRefunds(platform.management!, {bizOrderNo: row.number, status: 'success'})).reduce((sum, refund) => sum + Number(refund.amount), 0)
  return compared(row, data.orderNo, {amount: data.amount, status: data.status, refunded})
}

async function compareRefund(platform: Platform, row: LedgerRow): Promise<Compared> {
  let data
  try {
    data = (await queryRefund(platform.client, {bizRefundNo: row.number})).response!.data
    platform.health.answered()
  } catch (error) {
    if (!(error instanceof PlatformError && error.signed && error.code === SEVERAL)) throw error
    platform.health.answered()
    if (!row.bizOrderNo || !platform.management) {
      const how = row.bizOrderNo ? `\`unipay mch login\` lets reconcile find the one of order ${row.bizOrderNo}` : 'give the row its bizOrderNo'
      return differ(row, {difference: 'ambiguous', code: error.code, message: `several orders hold refund ${row.number}: ${how} (${error.platformMessage})`})
    }
    // the management API tells them apart by the order; its record is then asked of the signed API
    const found = await exactRefunds(platform.management, {bizRefundNo: row.number, bizOrderNo: row.bizOrderNo})
    if (found.length !== 1) return found.length ? differ(row, {difference: 'ambiguous', message: `order ${row.bizOrderNo} holds ${found.length} refunds ${row.number}`}) : missing(row)
    data = (await queryRefund(platform.client, {refundNo: String(found[0].refundNo)})).response!.data
  }
  if (row.bizOrderNo !== undefined && data.bizOrderNo !== undefined && data.bizOrderNo !== row.bizOrderNo) {
    return differ(row, {difference: 'missing on platform', message: `the platform's refund ${row.number} (${data.refundNo}) is of order ${data.bizOrderNo}, not ${row.bizOrderNo}`})
  }
  return compared(row, data.refundNo, {amount: data.amount, status: data.status})
}

/** The platform's record beside the row: a match, or the first of what differs named, with all of it in the message. */
function compared(row: LedgerRow, platformNo: string, record: {amount: unknown; status: unknown; refunded?: number}): Compared {
  const amount = typeof record.amount === 'number' ? record.amount : Number.NaN
  const status = String(record.status ?? '')
  const found: {difference: 'amount differs' | 'status differs' | 'refunded differs'; ledger: string; platform: string}[] = []
  if (amount !== row.amount) found.push({difference: 'amount differs', ledger: String(row.amount), platform: display(record.amount)})
  if (!sameStatus(row.status, status)) found.push({difference: 'status differs', ledger: row.status, platform: status})
  if (row.refunded !== undefined && record.refunded !== row.refunded) found.push({difference: 'refunded differs', ledger: String(row.refunded), platform: String(record.refunded)})
  if (found.length === 0) return {matched: true, cents: row.amount}
  const [first] = found
  const money = (f: (typeof found)[number], cents: string) => (f.difference === 'status differs' || !/^\d+$/.test(cents) ? cents || '(none)' : `${cents} (¥${centsToYuan(Number(cents))})`)
  const message = found.map((f) => `${f.difference.split(' ')[0]}: ledger ${money(f, f.ledger)}, platform ${money(f, f.platform)}`).join('; ')
  const refunded = first.difference === 'refunded differs'
  return {
    difference: {
      ...base(row),
      platformNo,
      ...first,
      ledgerCents: refunded ? row.refunded! : row.amount,
      platformCents: refunded ? record.refunded! : Number.isSafeInteger(amount) ? amount : 0,
      message,
    },
  }
}

const display = (value: unknown) => (value === undefined || value === null ? '' : String(value))

const base = (row: LedgerRow) => ({line: row.line, kind: row.kind, number: row.number})

function differ(row: LedgerRow, what: Pick<Difference, 'difference' | 'message'> & Partial<Difference>): Compared {
  return {difference: {...base(row), ledgerCents: row.amount, platformCents: 0, ...what}}
}

/** `said`: the platform's own words, when it answered "not found". */
function missing(row: LedgerRow, said?: string): Compared {
  const of = row.kind === 'refund' && row.bizOrderNo ? ` of order ${row.bizOrderNo}` : row.kind === 'transfer' ? ` on ${row.channel}` : ''
  return differ(row, {difference: 'missing on platform', ledger: String(row.amount), message: `the platform has no ${NAMES[row.kind]} ${row.number}${of}${said ? ` (${said})` : ''}`})
}

/**
 * An error as the row's outcome: a signed "not found" is a record missing, another error answer a
 * platform error, an answer that does not verify is never a match, and no answer is no comparison.
 * An ended management session ends the run (every later row would fail alike).
 */
function failed(platform: Platform, row: LedgerRow, error: unknown): Compared {
  if (error instanceof TransportError) {
    platform.health.unreachable()
    return {notCompared: error.message}
  }
  platform.health.answered()
  if (error instanceof SessionError) throw error
  if (error instanceof SignatureError) return differ(row, {difference: 'unverified', message: error.message})
  if (error instanceof PlatformError) {
    if (error.signed && NOT_FOUND.has(error.code)) return missing(row, error.platformMessage)
    return differ(row, {difference: 'platform error', code: error.code, message: error.message.replace(/^platform error \d+: /, '')})
  }
  throw error
}
