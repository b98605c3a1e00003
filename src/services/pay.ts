// Payment orders: create, close, sync, query. Business numbers are generated here when the
// user leaves them out, so that every create carries its idempotency key.
import {randomBytes} from 'node:crypto'
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {NormalPayOrderResult, NormalPayResult, PingAnswer, SyncAnswer} from '../protocol/answers.js'
import {SignatureError, TransportError, UsageError} from '../errors.js'
import {fastEndpoints} from '../protocol/field-rules.js'
import {compactGmt8} from '../protocol/time.js'

export interface CallOptions {
  dryRun?: boolean
}

/** The zod catalog, loaded only by the calls without fast rules (see field-rules.ts). */
const catalog = async () => (await import('../protocol/endpoints.js')).endpoints

export function generateBusinessNo(prefix: string, now = new Date()): string {
  return `${prefix}${compactGmt8(now)}${randomBytes(4).toString('hex').toUpperCase()}`
}

/**
 * A create whose answer was lost may have been carried out: say so, with the business number
 * to check it by. Never resend it with a new number on the user's behalf.
 */
export async function outcomeUnknownHint<T>(create: Promise<T>, key: string, value: unknown, check: string): Promise<T> {
  try {
    return await create
  } catch (error) {
    const next = `Check with: unipay ${check} ${String(value)}\nresending with the same ${key} is safe (it is the idempotency key); a new ${key} could act twice`
    if (error instanceof TransportError && error.outcomeUnknown) {
      error.message = `outcome unknown: ${error.message}`
      error.hint = `the platform may have carried it out. ${next}`
      error.details = {outcomeUnknown: true, [key]: value}
    } else if (error instanceof SignatureError) {
      // the answer cannot be believed, but the create may well have happened
      error.hint = `the platform may have carried it out, but its answer cannot be believed. ${next}`
      error.details = {...error.details, outcomeUnknown: true, [key]: value}
    }
    throw error
  }
}

export async function createPayment(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult<NormalPayResult>> {
  if (Array.isArray(fields.limitPay) && fields.limitPay.some((value) => value === '')) {
    throw new UsageError('invalid input', [{field: 'limitPay', message: 'an empty value restricts nothing: give a payment type such as no_credit, or leave it out'}])
  }
  const bizOrderNo = fields.bizOrderNo ?? generateBusinessNo('P')
  return outcomeUnknownHint(call<NormalPayResult>(client, fastEndpoints.pay, {...fields, bizOrderNo}, options), 'bizOrderNo', bizOrderNo, 'query pay --biz-order-no')
}

export async function closePayment(
  client: ClientConfig,
  ref: {orderNo?: string; bizOrderNo?: string},
  useCancel: boolean,
  options: CallOptions = {},
): Promise<CallResult<null>> {
  return call(client, (await catalog()).close, {...ref, useCancel}, options)
}

export async function syncPayment(
  client: ClientConfig,
  ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string},
  options: CallOptions = {},
): Promise<CallResult<SyncAnswer>> {
  return call(client, (await catalog()).syncPay, ref, options)
}

export async function queryPayment(client: ClientConfig, ref: {orderNo?: string; bizOrderNo?: string}, options: CallOptions = {}): Promise<CallResult<NormalPayOrderResult>> {
  return call(client, fastEndpoints.queryPay, ref, options)
}

export async function ping(client: ClientConfig, options: CallOptions = {}): Promise<CallResult<PingAnswer>> {
  return call(client, (await catalog()).ping, {}, options)
}
