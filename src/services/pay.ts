// Payment orders: create, close, sync, query, and ping. A create without a bizOrderNo gets one
// generated (call.ts), so that every create carries its idempotency key.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {NormalPayOrderResult, NormalPayResult, PingAnswer, SyncAnswer} from '../protocol/answers.js'
import {UsageError} from '../errors.js'
import {endpoints} from '../protocol/endpoints.js'
import {generateBusinessNo, outcomeUnknownHint, type CallOptions} from './call.js'

export async function createPayment(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult<NormalPayResult>> {
  if (Array.isArray(fields.limitPay) && fields.limitPay.some((value) => value === '')) {
    throw new UsageError('invalid input', [{field: 'limitPay', message: 'an empty value restricts nothing: give a payment type such as no_credit, or leave it out'}])
  }
  const bizOrderNo = fields.bizOrderNo ?? generateBusinessNo('P')
  return outcomeUnknownHint(call<NormalPayResult>(client, endpoints.pay, {...fields, bizOrderNo}, options), 'bizOrderNo', bizOrderNo, 'query pay --biz-order-no')
}

export async function closePayment(
  client: ClientConfig,
  ref: {orderNo?: string; bizOrderNo?: string},
  useCancel: boolean,
  options: CallOptions = {},
): Promise<CallResult<null>> {
  return call(client, endpoints.close, {...ref, useCancel}, options)
}

export async function syncPayment(
  client: ClientConfig,
  ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string},
  options: CallOptions = {},
): Promise<CallResult<SyncAnswer>> {
  return call(client, endpoints.syncPay, ref, options)
}

export async function queryPayment(client: ClientConfig, ref: {orderNo?: string; bizOrderNo?: string}, options: CallOptions = {}): Promise<CallResult<NormalPayOrderResult>> {
  return call(client, endpoints.queryPay, ref, options)
}

export async function ping(client: ClientConfig, options: CallOptions = {}): Promise<CallResult<PingAnswer>> {
  return call(client, endpoints.ping, {}, options)
}
