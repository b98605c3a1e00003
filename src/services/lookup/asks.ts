// One lookup by one number: the query services asked as the query commands ask them, and what
// came back as a record with its answer's state. An answer that does not verify is still shown
// (marked), never believed silently and never hidden.
import type {CallResult, ClientConfig} from '../../client/pipeline.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import {PlatformError, SignatureError, UsageError} from '../../errors.js'
import {resultCode} from '../../protocol/envelope.js'
import {isLosslessNumber, type JsonObject, type JsonValue} from '../../protocol/json.js'
import {queryAlloc} from '../alloc.js'
import {queryGateway} from '../gateway.js'
import {queryPayment} from '../pay.js'
import {queryRefund} from '../refund.js'
import {queryTransfer} from '../transfer.js'
import type {Ask} from './shapes.js'

/**
 * How far an answer can be believed: its signature verified; it carried one that did not
 * verify (or it failed another check of the answer); or it is of a kind the platform never
 * signs (the management API, the local sandbox's control answers).
 */
export type AnswerState = 'verified' | 'failed verification' | 'unsigned'

/** A record as the platform sent it, where it came from and how far it can be believed. */
export interface Answered {
  state: AnswerState
  /** The endpoint that answered. */
  source: string
  /** The record, numbers exact. */
  data: JsonObject
  /** Why it failed verification. */
  problem?: string
  /** The platform's clock when it answered (a signed answer's resTime). */
  resTime?: string
  /** A split's: the unit its amounts are in (the spec's yuan, or the cents some platforms take). */
  unit?: 'yuan' | 'cents'
}

/** What a lookup is asked with: the run's client and profile (read again once a local sandbox runs), and where a local sandbox is looked for. */
export interface AskContext {
  context: {client: ClientConfig; profile: ResolvedProfile}
  where: {home: string; env: NodeJS.ProcessEnv}
}

/**
 * Found (with what to warn of); not there (the platform's words); an answer that cannot be
 * believed either way; or a bizRefundNo several orders hold (the platform's words), which the
 * signed query cannot tell apart.
 */
export type Outcome = {found: Answered; warning?: string} | {missing: string} | {unbelievable: string} | {several: PlatformError}

const PATHS = {
  pay: '/unipay/query/pay-order',
  gateway: '/unipay/gateway/query',
  refund: '/unipay/query/refund-order',
  transfer: '/unipay/query/transfer-order',
  alloc: '/unipay/query/alloc-order',
} as const

/** The platform's "no such record": trade not found, no such data. */
const NOT_FOUND = new Set([20041, 10405])
/** Validation failed: the number cannot be of this kind here (or names several records). */
const NOT_THIS_KIND = 10506

/** The query's answer, and for a split the unit of its amounts. */
async function send({context, where}: AskContext, ask: Ask, number: string): Promise<{result: CallResult; unit?: {unit: 'yuan' | 'cents'; warning?: string}}> {
  const {client} = context
  switch (ask.query) {
    case 'pay':
      return {result: await queryPayment(client, {[ask.field]: number})}
    case 'gateway':
      return {result: await queryGateway(client, {[ask.field]: number})}
    case 'refund':
      return {result: await queryRefund(client, {[ask.field]: number})}
    case 'alloc':
      return queryAlloc(context, where, {[ask.field]: number})
    case 'transfer':
      return {result: await queryTransfer(client, ask.field === 'transferNo' ? {transferNo: number} : {bizTransferNo: number, channel: ask.channel})}
  }
}

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value)

/**
 * Asks one query. Transport failures and platform errors that say nothing about the number
 * (a refused signature, an unknown merchant) are thrown: every other lookup would fail alike.
 */
export async function ask(on: AskContext, which: Ask, number: string): Promise<Outcome> {
  const source = PATHS[which.query]
  try {
    const {result, unit} = await send(on, which, number)
    const body = result.response!.body
    const found: Answered = {state: 'verified', source, data: body.data as JsonObject, resTime: typeof body.resTime === 'string' ? body.resTime : undefined}
    return unit ? {found: {...found, unit: unit.unit}, warning: unit.warning} : {found}
  } catch (error) {
    if (error instanceof SignatureError) {
      const body = error.response as JsonObject | undefined
      if (body && resultCode(body) === 0 && isObject(body.data)) return {found: {state: 'failed verification', source, data: body.data, problem: error.message}}
      return {unbelievable: error.message}
    }
    // a bizRefundNo that passed the field rules is refused only for being on several orders (notes §4)
    if (error instanceof PlatformError && error.code === NOT_THIS_KIND && which.query === 'refund' && which.field === 'bizRefundNo') return {several: error}
    if (error instanceof PlatformError && (NOT_FOUND.has(error.code) || error.code === NOT_THIS_KIND)) return {missing: `${error.platformMessage} (${error.code})`}
    // a number too long for this field: it cannot be one of these
    if (error instanceof UsageError) return {missing: error.problems.map((p) => `${p.field} ${p.message}`).join('; ') || error.message}
    throw error
  }
}

/** A lookup in words: the query and the field, as the query command's flag names it. */
export function describeAsk(which: Ask): string {
  const flag = which.field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  return `query ${which.query} --${flag}${'channel' in which ? ` --channel ${which.channel}` : ''}`
}
