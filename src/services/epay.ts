// The compatibility module's calls (`epay v1 ...`, `epay v2 ...`): parameters checked before
// anything is sent (money exactly, lengths, the value sets), business numbers generated when
// left out (they are the idempotency keys), V2 `type`/`method` in the profile's order.
import {epayCall, type EpayConfig, type EpayResult} from '../client/epay.js'
import {UsageError} from '../errors.js'
import {EPAY_DEVICES, EPAY_MODES, EPAY_V1_PATHS, EPAY_V2_PATHS, EPAY_WALLET_VALUES, epayMoneyToCents, isMode, readWallet, type EpayVersion} from '../protocol/epay-api.js'
import {MoneyFormatError} from '../protocol/money.js'
import {httpUrlProblem} from '../protocol/addresses.js'
import {unsendableFields, type FieldProblem} from '../protocol/field-rules.js'
import {generateBusinessNo, outcomeUnknownHint} from './call.js'

interface EpayOptions {
  dryRun?: boolean
}

interface EpayOrderInput {
  /** V1: the wallet (neutral or the protocol's word: alipay, wxpay, aggregate). V2: the payment type (web, jump, jsapi, app). */
  type?: string
  /** V2: the wallet. */
  method?: string
  outTradeNo?: string
  name: string
  money: string
  notifyUrl?: string
  returnUrl?: string
  param?: string
  device?: string
  clientip?: string
  /** V2 jsapi: the payer's openid. */
  subOpenid?: string
  /** V2: send type = wallet and method = payment type, as common epay clients do. */
  swapped?: boolean
}

interface EpayRef {
  tradeNo?: string
  outTradeNo?: string
}

/** Refuses bad input before anything is sent: the problems found, and what no text field may hold (control characters, lone surrogates), as for /unipay/* calls. */
function check(problems: FieldProblem[], fields: object): void {
  const all = [...problems, ...unsendableFields(fields, '')]
  if (all.length > 0) throw new UsageError('invalid input', all)
}

function moneyProblem(money: string | undefined, field = 'money'): FieldProblem | undefined {
  if (money === undefined || money === '') return {field, message: 'is required (yuan, e.g. 12.50)'}
  try {
    epayMoneyToCents(money)
    return undefined
  } catch (error) {
    if (error instanceof MoneyFormatError) return {field, message: error.message}
    throw error
  }
}

function lengthProblem(field: string, value: string | undefined, max: number): FieldProblem | undefined {
  return value !== undefined && value.length > max ? {field, message: `must be at most ${max} characters`} : undefined
}

function orderProblems(version: EpayVersion, input: EpayOrderInput): FieldProblem[] {
  const problems: (FieldProblem | undefined)[] = [
    moneyProblem(input.money),
    !input.name ? {field: 'name', message: 'is required'} : lengthProblem('name', input.name, 100),
    lengthProblem('outTradeNo', input.outTradeNo, 100),
    lengthProblem('param', input.param, 500),
    lengthProblem('subOpenid', input.subOpenid, 128),
  ]
  for (const field of ['notifyUrl', 'returnUrl'] as const) {
    const value = input[field]
    const problem = value === undefined ? undefined : httpUrlProblem(value)
    if (value !== undefined) problems.push(problem ? {field, message: problem} : lengthProblem(field, value, 200))
  }
  if (input.device !== undefined && !(EPAY_DEVICES as readonly string[]).includes(input.device)) {
    problems.push({field: 'device', message: `must be one of ${EPAY_DEVICES.join(', ')}`})
  }
  if (version === 'v1') {
    if (input.type !== undefined && !readWallet(input.type)) problems.push({field: 'type', message: `must be a wallet: ${EPAY_WALLET_VALUES.join(', ')}`})
  } else {
    if (input.type !== undefined && !isMode(input.type)) problems.push({field: 'type', message: `must be one of ${EPAY_MODES.join(', ')}`})
    if (input.method !== undefined && !readWallet(input.method)) problems.push({field: 'method', message: `must be a wallet: ${EPAY_WALLET_VALUES.join(', ')}`})
    if ((input.type === 'jsapi' || input.type === 'app') && !readWallet(input.method)?.wallet) problems.push({field: 'method', message: `is required for --type ${input.type} (a wallet, not the aggregate QR)`})
  }
  return problems.filter((p): p is FieldProblem => p !== undefined)
}

function refProblems(ref: EpayRef): FieldProblem[] {
  return !ref.tradeNo && !ref.outTradeNo ? [{field: 'outTradeNo', message: 'give --out-trade-no or --trade-no'}] : []
}

/** create (or, with submit, the redirect) of V1 or V2. out_trade_no is generated when left out. */
export async function epayCreate(config: EpayConfig, version: EpayVersion, input: EpayOrderInput, options: EpayOptions & {submit?: boolean} = {}): Promise<EpayResult & {outTradeNo: string}> {
  check(orderProblems(version, input), input)
  const outTradeNo = input.outTradeNo ?? generateBusinessNo('E')
  const mode = version === 'v2' ? (input.type ?? 'web') : undefined
  const fields: Record<string, string | undefined> = {
    out_trade_no: outTradeNo,
    name: input.name,
    money: input.money,
    notify_url: input.notifyUrl,
    return_url: input.returnUrl,
    param: input.param,
    device: input.device,
    clientip: input.clientip,
  }
  if (version === 'v1') fields.type = input.type
  else if (input.swapped && input.method !== undefined) {
    // Common epay clients: type = the wallet, method = web|jump|jsapi|app.
    fields.type = input.method
    fields.method = mode
  } else {
    // The spec's order (and, without a wallet, the only one: the aggregate QR).
    fields.type = mode
    fields.method = input.method
  }
  if (version === 'v2') fields.sub_openid = input.subOpenid
  const paths = version === 'v1' ? EPAY_V1_PATHS : EPAY_V2_PATHS
  const lookup = version === 'v1' ? 'epay v1 query --out-trade-no' : 'epay v2 query --out-trade-no'
  const result = await outcomeUnknownHint(
    epayCall(config, {version, path: options.submit ? paths.submit : paths.create, fields, kind: 'create', expect: options.submit ? 'redirect' : 'json'}, options),
    'out_trade_no',
    outTradeNo,
    lookup,
  )
  return {...result, outTradeNo}
}

export async function epayQuery(config: EpayConfig, version: EpayVersion, ref: EpayRef, options: EpayOptions = {}): Promise<EpayResult> {
  check(refProblems(ref), ref)
  const fields = {trade_no: ref.tradeNo, out_trade_no: ref.tradeNo ? undefined : ref.outTradeNo}
  if (version === 'v1') return epayCall(config, {version, path: EPAY_V1_PATHS.query, fields: {act: 'order', ...fields}, kind: 'read', auth: 'key'}, options)
  return epayCall(config, {version, path: EPAY_V2_PATHS.query, fields, kind: 'read'}, options)
}

export async function epayRefund(config: EpayConfig, input: EpayRef & {money: string; outRefundNo?: string}, options: EpayOptions = {}): Promise<EpayResult & {outRefundNo: string}> {
  check([...refProblems(input), moneyProblem(input.money), lengthProblem('outRefundNo', input.outRefundNo, 100)].filter((p): p is FieldProblem => p !== undefined), input)
  // Fixed before sending: resending the same out_refund_no can never refund twice.
  const outRefundNo = input.outRefundNo ?? generateBusinessNo('ER')
  const fields = {trade_no: input.tradeNo, out_trade_no: input.tradeNo ? undefined : input.outTradeNo, money: input.money, out_refund_no: outRefundNo}
  const result = await outcomeUnknownHint(
    epayCall(config, {version: 'v2', path: EPAY_V2_PATHS.refund, fields, kind: 'create'}, options),
    'out_refund_no',
    outRefundNo,
    'epay v2 refund-query --out-refund-no',
  )
  return {...result, outRefundNo}
}

export async function epayRefundQuery(config: EpayConfig, ref: {refundNo?: string; outRefundNo?: string}, options: EpayOptions = {}): Promise<EpayResult> {
  check(!ref.refundNo && !ref.outRefundNo ? [{field: 'outRefundNo', message: 'give --out-refund-no or --refund-no'}] : [], ref)
  const fields = {refund_no: ref.refundNo, out_refund_no: ref.refundNo ? undefined : ref.outRefundNo}
  return epayCall(config, {version: 'v2', path: EPAY_V2_PATHS.refundQuery, fields, kind: 'read'}, options)
}

export async function epayClose(config: EpayConfig, ref: EpayRef, options: EpayOptions = {}): Promise<EpayResult> {
  check(refProblems(ref), ref)
  const fields = {trade_no: ref.tradeNo, out_trade_no: ref.tradeNo ? undefined : ref.outTradeNo}
  return epayCall(config, {version: 'v2', path: EPAY_V2_PATHS.close, fields, kind: 'action'}, options)
}
