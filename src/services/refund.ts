// Refunds: create (bizRefundNo generated when omitted, so every create carries its
// idempotency key), sync and query.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {RefundOrderResult, RefundResult, SyncAnswer} from '../protocol/answers.js'
import {endpoints} from '../protocol/endpoints.js'
import {generateBusinessNo, outcomeUnknownHint, type CallOptions} from './call.js'

interface RefundInput {
  tradeNo?: string
  bizOrderNo?: string
  amount?: number
  reason?: string
  bizRefundNo?: string
}

export async function createRefund(client: ClientConfig, input: RefundInput, options: CallOptions = {}): Promise<CallResult<RefundResult>> {
  const bizRefundNo = input.bizRefundNo ?? generateBusinessNo('RF')
  return outcomeUnknownHint(call<RefundResult>(client, endpoints.refund, {...input, bizRefundNo}, options), 'bizRefundNo', bizRefundNo, 'query refund --biz-refund-no')
}

export async function syncRefund(client: ClientConfig, ref: {refundNo?: string; bizRefundNo?: string}, options: CallOptions = {}): Promise<CallResult<SyncAnswer>> {
  return call(client, endpoints.syncRefund, ref, options)
}

export async function queryRefund(client: ClientConfig, ref: {refundNo?: string; bizRefundNo?: string}, options: CallOptions = {}): Promise<CallResult<RefundOrderResult>> {
  return call(client, endpoints.queryRefund, ref, options)
}
