// Gateway orders: the hosted cashier / aggregate QR page (pre-pay) and its query. The merchant
// order number is generated when left out, so every pre-pay carries its idempotency key.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {GatewayOrderResult, GatewayPrePayResult} from '../protocol/answers.js'
import {endpoints} from '../protocol/endpoints.js'
import {generateBusinessNo, outcomeUnknownHint, type CallOptions} from './call.js'

export async function gatewayPrePay(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult<GatewayPrePayResult>> {
  const bizOrderNo = fields.bizOrderNo ?? generateBusinessNo('G')
  return outcomeUnknownHint(call<GatewayPrePayResult>(client, endpoints.gatewayPrePay, {...fields, bizOrderNo}, options), 'bizOrderNo', bizOrderNo, 'query gateway --biz-order-no')
}

export async function queryGateway(client: ClientConfig, ref: {orderNo?: string; bizOrderNo?: string}, options: CallOptions = {}): Promise<CallResult<GatewayOrderResult>> {
  return call(client, endpoints.queryGateway, ref, options)
}
