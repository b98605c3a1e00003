// Payment orders: create, close, sync, query. Business numbers are generated here when the
// user leaves them out, so that every create carries its idempotency key.
import {randomBytes} from 'node:crypto'
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import {endpoints} from '../protocol/endpoints.js'
import {compactGmt8} from '../protocol/time.js'

export interface CallOptions {
  dryRun?: boolean
}

export function generateBusinessNo(prefix: string, now = new Date()): string {
  return `${prefix}${compactGmt8(now)}${randomBytes(4).toString('hex').toUpperCase()}`
}

export async function createPayment(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult> {
  return call(client, endpoints.pay, {...fields, bizOrderNo: fields.bizOrderNo ?? generateBusinessNo('P')}, options)
}

export async function closePayment(
  client: ClientConfig,
  ref: {orderNo?: string; bizOrderNo?: string},
  useCancel: boolean,
  options: CallOptions = {},
): Promise<CallResult> {
  return call(client, endpoints.close, {...ref, useCancel}, options)
}

export async function syncPayment(
  client: ClientConfig,
  ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string},
  options: CallOptions = {},
): Promise<CallResult> {
  return call(client, endpoints.syncPay, ref, options)
}

export async function queryPayment(client: ClientConfig, ref: {orderNo?: string; bizOrderNo?: string}, options: CallOptions = {}): Promise<CallResult> {
  return call(client, endpoints.queryPay, ref, options)
}

export async function ping(client: ClientConfig, options: CallOptions = {}): Promise<CallResult> {
  return call(client, endpoints.ping, {}, options)
}
