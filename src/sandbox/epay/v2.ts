// V2 (`/epay/api/v2/api/pay/`): RSA with the merchant key over the parameters and a
// `timestamp` within 300 s of the real time; a signature carried out once is not carried out
// again (remembered by its decoded bytes, so only canonical Base64 is taken). Besides create
// and submit (orders.ts): refund, refund query and close, answered in epay words and yuan.
import {EPAY_TIMESTAMP_WINDOW_SECONDS} from '../../protocol/epay-api.js'
import {diagnoseEpayRsa} from '../../protocol/epay-diagnose.js'
import {echoedStringToSign} from '../../protocol/envelope.js'
import {endpoints} from '../../protocol/endpoints.js'
import {centsToYuan} from '../../protocol/money.js'
import {checkFields, type RefundRequest} from '../../protocol/schemas.js'
import {canonicalBase64Problem} from '../../protocol/signature.js'
import {formatGmt8} from '../../protocol/time.js'
import {fail, PlatformFailure} from '../errors.js'
import type {PayOrder} from '../pay.js'
import {refundOrderResult, refundResult, type RefundOrder} from '../refund.js'
import {describeProblems, moneyOf, orderOf, type EpayContext, type Params, type Result, type StoredMerchant} from './shared.js'

/**
 * Whether the same signed request may simply be answered again: reads (a client polling twice
 * in one second signs the same bytes), and calls whose idempotency key makes a repeat return
 * the first result. Anything else repeated with the same signature is a replay.
 */
function repeatable(action: string, params: Params): boolean {
  if (action === 'query' || action === 'refund_query' || action === 'create' || action === 'submit') return true
  return action === 'refund' && outRefundNoOf(params) !== undefined
}

/**
 * out_refund_no, unless blank: the V2 selection leaves a blank value out of the signature, so
 * anyone may add one to a captured refund (an out_refund_no of " " made it repeatable, and new).
 */
const outRefundNoOf = (params: Params) => (params.out_refund_no?.trim() ? params.out_refund_no : undefined)

const REPLAY_ADVICE: Record<string, string> = {
  refund: 'the refund was made once and is not made again. To resend a refund safely, give it an out_refund_no: the same out_refund_no answers the first refund instead of refunding again; for another refund, sign a fresh request',
  close: 'the order was closed by the first request; sign a fresh request (a new timestamp) to ask again',
}

/** RSA only, signed by the merchant key over canonical Base64, timestamp within the window, not a replay. */
export function checkV2(ctx: EpayContext, params: Params, action: string): StoredMerchant {
  const merchant = ctx.merchantOf(params)
  // The spec makes sign_type required, and the V2 SDK always sends it
  const signType = params.sign_type
  if (!signType) fail(10506, 'sign_type: is required: send sign_type=RSA')
  if (signType.toUpperCase() === 'MD5') {
    fail(10506, `sign_type: V2 refuses MD5: sign with RSA (SHA256withRSA, the merchant private key) and send sign_type=RSA; MD5 is V1, at /epay/api/v1/`)
  }
  if (signType !== 'RSA') fail(10506, `sign_type: must be RSA, not "${signType}"`)
  const sign = params.sign
  if (!sign) fail(10506, 'sign: is required')
  // Lenient decoding reads many texts as one signature: each spelling would pass as a new request.
  const notCanonical = canonicalBase64Problem(sign)
  if (notCanonical) fail(20052, `sign: not canonical Base64 (standard alphabet, padding, no whitespace): it ${notCanonical}`)
  const timestamp = params.timestamp
  if (!timestamp) fail(10506, 'timestamp: is required (Unix seconds, signed)')
  if (!/^\d{1,12}$/.test(timestamp)) fail(10506, `timestamp: "${timestamp}" is not Unix seconds`)
  // the V2 selection (whitespace-only values dropped), or the one that keeps them
  const diagnosis = diagnoseEpayRsa({params, sign, key: ctx.publicKeyOf(merchant)})
  if (!diagnosis.verified) {
    // the cause first: clients read the server's string as everything after "string to sign: "
    const cause = diagnosis.matchingString === undefined ? '' : `: likeliest cause: ${diagnosis.explanation}`
    fail(20052, `signature verification failed (RSA, the merchant public key)${cause}; server ${echoedStringToSign(diagnosis.expectedString)}`)
  }
  const offBy = Number(timestamp) - ctx.realSeconds()
  if (ctx.timestampChecks !== false && Math.abs(offBy) > EPAY_TIMESTAMP_WINDOW_SECONDS) {
    fail(10410, `timestamp ${timestamp} is ${Math.abs(offBy)} s ${offBy < 0 ? 'behind' : 'ahead of'} the platform clock (at most ${EPAY_TIMESTAMP_WINDOW_SECONDS} s allowed): sign a fresh request`)
  }
  if (!repeatable(action, params) && ctx.replay && !ctx.replay.firstSignature(merchant.mchNo, Buffer.from(sign, 'base64'), Number(timestamp))) {
    fail(10409, `this signed request was already received and carried out (same signature): ${REPLAY_ADVICE[action] ?? 'sign a fresh request'}`)
  }
  return merchant
}

/** A refund refused by the RefundService, reworded with epay names and yuan. */
function epayRefundFailure(error: PlatformFailure, order: PayOrder, amount: number, outRefundNo: string | undefined): never {
  switch (error.code) {
    case 20060:
      return fail(20060, `money ${centsToYuan(amount)} is over what can still be refunded of trade_no ${order.orderNo} (${centsToYuan(order.refundableBalance)} yuan)`)
    case 10507:
      return fail(10507, `out_refund_no ${outRefundNo ?? ''} was already used for this order with different parameters`)
    case 20044:
      return fail(20044, `trade_no ${order.orderNo} is not paid (${order.status}): only a paid order can be refunded`)
  }
  throw error
}

/** refund and refundquery answer the fields epay clients test; refundquery's status is numeric (clients compare it with 1). */
function refundFields(refund: RefundOrder, full: boolean): Result {
  const flat: Record<string, unknown> = {
    refund_no: refund.refundNo,
    out_refund_no: refund.bizRefundNo,
    trade_no: refund.orderNo,
    out_trade_no: refund.bizOrderNo,
    money: centsToYuan(refund.amount),
    // what the merchant's balance gives up: the whole refund (the sandbox keeps no fee)
    reducemoney: centsToYuan(refund.amount),
    status: refund.status,
  }
  if (full) {
    flat.status = refund.status === 'success' ? 1 : 0
    flat.addtime = formatGmt8(new Date(refund.createdAtMs))
    flat.endtime = refund.finishTime ?? ''
  }
  return {data: full ? refundOrderResult(refund) : refundResult(refund), flat}
}

export function refund(ctx: EpayContext, params: Params, merchant: StoredMerchant): Result {
  const order = orderOf(ctx, merchant.mchNo, params)
  const amount = moneyOf(params)
  const request: Record<string, unknown> = {mchNo: merchant.mchNo, bizOrderNo: order.bizOrderNo, amount, reqId: 'epay', reqTime: formatGmt8(ctx.now())}
  const outRefundNo = outRefundNoOf(params)
  if (outRefundNo) request.bizRefundNo = outRefundNo
  const problems = checkFields(endpoints.refund.fields, request)
  if (problems.length > 0) fail(10506, describeProblems(problems))
  try {
    return refundFields(ctx.refunds.create(request as RefundRequest), false)
  } catch (error) {
    if (!(error instanceof PlatformFailure)) throw error
    return epayRefundFailure(error, order, amount, outRefundNo)
  }
}

export function refundQuery(ctx: EpayContext, params: Params, merchant: StoredMerchant): Result {
  if (!params.refund_no && !params.out_refund_no) fail(10506, 'out_refund_no: one of out_refund_no / refund_no is required')
  let found: RefundOrder
  try {
    found = ctx.refunds.find(merchant.mchNo, params.refund_no ? {refundNo: params.refund_no} : {bizRefundNo: params.out_refund_no})
  } catch (error) {
    if (!(error instanceof PlatformFailure)) throw error
    return fail(error.code, params.refund_no ? `no refund with refund_no ${params.refund_no}` : `no refund with out_refund_no ${params.out_refund_no}`)
  }
  return refundFields(found, true)
}

export function close(ctx: EpayContext, params: Params, merchant: StoredMerchant): Result {
  const order = orderOf(ctx, merchant.mchNo, params)
  const closed = ctx.pay.close(merchant.mchNo, {orderNo: order.orderNo}, false)
  return {
    data: {orderNo: closed.orderNo, bizOrderNo: closed.bizOrderNo, status: closed.status},
    flat: {trade_no: closed.orderNo, out_trade_no: closed.bizOrderNo, status: closed.status},
  }
}
