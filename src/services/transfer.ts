// Single transfers: create (bizTransferNo generated when omitted), sync, query.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import {UsageError} from '../errors.js'
import type {SyncAnswer, TransferCreateResult, TransferOrderResult} from '../protocol/answers.js'
import {endpoints} from '../protocol/endpoints.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {generateBusinessNo, outcomeUnknownHint, type CallOptions} from './call.js'

/** The local sandbox's channel merchant number (protocol/local-sandbox.ts: SANDBOX_CHANNEL_MCH_NOS). */
const LOCAL_CHANNEL_MCH_NO = 'CM_SANDBOX'

/**
 * The channel merchant number of a transfer that names none (no flag, no column): the
 * profile's, else on the built-in local profile the sandbox's. One rule for `transfer` and
 * `transfer batch`.
 */
export function defaultChannelMchNo(profile: Pick<ResolvedProfile, 'environment' | 'settings'>): string | undefined {
  return profile.settings.channelMchNo ?? (profile.environment === 'local' ? LOCAL_CHANNEL_MCH_NO : undefined)
}

/** walletA's scene report from `--report-info TYPE=CONTENT` pairs (the content may hold "="); none given, none sent. */
export function reportInfosFromPairs(pairs: string[] | undefined): {infoType: string; infoContent: string}[] | undefined {
  return pairs?.map((pair) => {
    const at = pair.indexOf('=')
    if (at <= 0) throw new UsageError('invalid input', [{field: 'reportInfo', message: `"${pair}": expected TYPE=CONTENT`}])
    return {infoType: pair.slice(0, at), infoContent: pair.slice(at + 1)}
  })
}

/**
 * `transfer`: the channel merchant number defaulted, every rule checked (the request built, not
 * sent) before `confirm` asks (a production profile's question), then sent under the checked
 * request's bizTransferNo.
 */
export async function transfer(
  context: {client: ClientConfig; profile: Pick<ResolvedProfile, 'name' | 'environment' | 'settings'>},
  fields: Record<string, unknown>,
  options: CallOptions & {confirm: () => Promise<void>},
): Promise<CallResult<TransferCreateResult>> {
  const withDefault = {...fields, channelMchNo: fields.channelMchNo ?? defaultChannelMchNo(context.profile)}
  const checked = await createTransfer(context.client, withDefault, {dryRun: true}).catch((error: unknown) => {
    throw withChannelMchNoHint(error, context.profile.name)
  })
  if (options.dryRun) return checked
  await options.confirm()
  return createTransfer(context.client, {...withDefault, bizTransferNo: checked.request.body.bizTransferNo})
}

/** A transfer without a channel merchant number: how to give one, for this transfer or on the profile. */
function withChannelMchNoHint(error: unknown, profile: string): unknown {
  if (error instanceof UsageError && error.problems.some((p) => p.field === 'channelMchNo' && p.message === 'is required')) {
    error.hint = `give --channel-mch-no, or set the profile's, which every transfer then uses: unipay profile set channelMchNo CHANNEL_MCH_NO --profile ${profile}`
  }
  return error
}

export async function createTransfer(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult<TransferCreateResult>> {
  const bizTransferNo = fields.bizTransferNo ?? generateBusinessNo('TF')
  return outcomeUnknownHint(
    call<TransferCreateResult>(client, endpoints.transfer, {...fields, bizTransferNo}, options),
    'bizTransferNo',
    bizTransferNo,
    `query transfer --channel ${String(fields.channel)} --biz-transfer-no`,
  )
}

type TransferRef = {transferNo?: string; bizTransferNo?: string; channel?: string}

export async function queryTransfer(client: ClientConfig, ref: TransferRef, options: CallOptions = {}): Promise<CallResult<TransferOrderResult>> {
  return call(client, endpoints.queryTransfer, ref, options)
}

export async function syncTransfer(client: ClientConfig, ref: TransferRef, options: CallOptions = {}): Promise<CallResult<SyncAnswer>> {
  return call(client, endpoints.syncTransfer, ref, options)
}
