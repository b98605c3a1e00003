// Single transfers: create (bizTransferNo generated when omitted), sync, query.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {SyncAnswer, TransferCreateResult, TransferOrderResult} from '../protocol/answers.js'
import {endpoints} from '../protocol/endpoints.js'
import {generateBusinessNo, outcomeUnknownHint, type CallOptions} from './pay.js'

/** The local sandbox's channel merchant number, used when a local profile names none. */
export const LOCAL_CHANNEL_MCH_NO = 'CM_SANDBOX'

export async function createTransfer(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult<TransferCreateResult>> {
  const bizTransferNo = fields.bizTransferNo ?? generateBusinessNo('TF')
  return outcomeUnknownHint(
    call<TransferCreateResult>(client, endpoints.transfer, {...fields, bizTransferNo}, options),
    'bizTransferNo',
    bizTransferNo,
    `query transfer --channel ${String(fields.channel)} --biz-transfer-no`,
  )
}

export type TransferRef = {transferNo?: string; bizTransferNo?: string; channel?: string}

export async function queryTransfer(client: ClientConfig, ref: TransferRef, options: CallOptions = {}): Promise<CallResult<TransferOrderResult>> {
  return call(client, endpoints.queryTransfer, ref, options)
}

export async function syncTransfer(client: ClientConfig, ref: TransferRef, options: CallOptions = {}): Promise<CallResult<SyncAnswer>> {
  return call(client, endpoints.syncTransfer, ref, options)
}
