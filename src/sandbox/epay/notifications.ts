// The `easy_pay` notification of a paid order (protocol-notes section 7): a GET to notify_url
// with the signed parameters, V1 signed with the MD5 key, V2 with the platform key and the real
// time in `timestamp` (the notifier signs every V2 attempt afresh). The return link the payer
// follows back to the shop carries the same parameters.
import {centsToYuan} from '../../protocol/money.js'
import {signMd5, signRsa} from '../../protocol/epay.js'
import {formatGmt8} from '../../protocol/time.js'
import type {PayOrder} from '../pay.js'
import {echoedType, type EpayContext, type EpayOrder, type Params} from './shared.js'

/** The signed `easy_pay` parameters of a paid order (also what return_url gets); undefined for a V1 merchant without its MD5 key. */
function notificationParams(ctx: EpayContext, record: EpayOrder, order: PayOrder): Params | undefined {
  const params: Params = {
    pid: order.mchNo,
    trade_no: order.orderNo,
    out_trade_no: order.bizOrderNo,
    type: echoedType(record, order),
    name: order.title,
    money: centsToYuan(order.amount),
    trade_status: 'TRADE_SUCCESS',
  }
  if (record.param) params.param = record.param
  if (record.version === 'v1') {
    const secret = ctx.md5Keys(order.mchNo)
    if (!secret) return undefined
    return {...params, sign: signMd5(params, secret.md5Key, secret.md5KeyForm), sign_type: 'MD5'}
  }
  if (order.outOrderNo) params.api_trade_no = order.outOrderNo
  if (order.buyerId) params.buyer = order.buyerId
  // business times, as the real platform sends them (a client stores paid_at from endtime)
  params.addtime = formatGmt8(new Date(order.createdAt))
  if (order.payTime) params.endtime = order.payTime
  params.timestamp = String(ctx.realSeconds())
  return {...params, sign: signRsa(params, ctx.platformKey), sign_type: 'RSA'}
}

/** A paid order made here tells its notify_url by GET (pay success only); never a system POST. */
export function notifyOnPayment(ctx: EpayContext): void {
  ctx.pay.listeners.push((order, event) => {
    if (event !== 'pay.success') return
    const record = ctx.record(order.orderNo)
    if (!record?.notifyUrl) return
    const params = notificationParams(ctx, record, order)
    if (params) ctx.notifier.emitEasyPay({event, url: record.notifyUrl, mchNo: order.mchNo, params, signedEachAttempt: record.version === 'v2'})
  })
}

/** Where the payer goes back to the shop once the order is paid: return_url with the signed parameters. */
export function returnLink(ctx: EpayContext, record: EpayOrder, order: PayOrder): string | undefined {
  if (order.status !== 'success' || !record.returnUrl) return undefined
  const params = notificationParams(ctx, record, order)
  if (!params) return undefined
  const target = new URL(record.returnUrl)
  for (const [key, value] of Object.entries(params)) target.searchParams.append(key, value)
  return target.toString()
}
