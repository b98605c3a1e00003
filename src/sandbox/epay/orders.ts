// Orders of the compatibility module (V1 and V2 alike): the wallet and payment type a request
// names, read in the epay client's words; the pay order made through the PayService (so the
// normal queries see it too); and what create and query answer about it.
import {canonicalString} from '../../protocol/canonical.js'
import {EPAY_WALLET_VALUES, isH5Device, PAY_TYPE_OF_BODY, readTypeAndMethod, readWallet, type EpayMode, type EpayVersion, type EpayWallet} from '../../protocol/epay-api.js'
import {PAY_METHODS} from '../../protocol/enums.js'
import {endpoints} from '../../protocol/endpoints.js'
import {centsToYuan} from '../../protocol/money.js'
import {checkFields, OPENID_METHODS, type PayRequest} from '../../protocol/schemas.js'
import {formatGmt8} from '../../protocol/time.js'
import {fail, PlatformFailure} from '../errors.js'
import {urlRefusal} from '../guard.js'
import {payOrderResult, type PayOrder} from '../pay.js'
import {describeProblems, echoedType, EPAY_ORDERS, moneyOf, PAYER_WALLETS, WORD_OF_WALLET, type EpayContext, type EpayOrder, type Params, type Result, type StoredMerchant} from './shared.js'

/** How the payer pays and with what, as the request says it. */
interface Payment {
  mode?: EpayMode
  wallet?: EpayWallet
  /** The client's wallet word, echoed back. */
  word?: string
  /** An unknown word on a browser path: the payer picks on the cashier page. */
  epayWords?: boolean
}

/**
 * The wallet (V1 `type`; V2 `type`/`method` in either order). An unknown word is refused on the
 * API paths, listing what is accepted; on a browser path (`submit`) an unknown or missing one
 * sends the payer to the cashier page (the aggregate QR's page), where they pick.
 */
function paymentOf(version: EpayVersion, params: Params, browser: boolean): Payment {
  if (version === 'v2') {
    const read = readTypeAndMethod(params)
    if (read.problem) {
      if (browser && read.unknown) return {mode: 'web', epayWords: Boolean(params.type || params.method)}
      fail(10506, `${read.problem.field}: ${read.problem.message}`)
    }
    return {mode: read.mode, wallet: read.wallet?.wallet, word: read.wallet?.word}
  }
  const type = params.type || undefined
  if (type === undefined) return {}
  const read = readWallet(type)
  if (read) return {wallet: read.wallet, word: read.word}
  if (browser) return {epayWords: true}
  return fail(10506, `type: "${type}" is not accepted: one of ${EPAY_WALLET_VALUES.join(', ')}`)
}

/**
 * The pay method for a payment type and wallet: a wallet's QR, its h5 (V1 on a mobile, in-app or
 * jump device; V2 jump), jsapi or app; no wallet: the aggregate QR. V2 `web` stays a QR whatever
 * the device (protocol-notes section 7).
 */
function methodFor(mode: EpayMode | undefined, wallet: EpayWallet | undefined, device: string | undefined): string {
  if (!wallet) {
    if (mode === 'jsapi' || mode === 'app') fail(10506, `method: type ${mode} needs a wallet (${EPAY_WALLET_VALUES.filter((w) => w !== 'aggregate').join(', ')}), not the aggregate QR`)
    return 'aggregate_pay_qrcode'
  }
  const kind = mode === 'jump' ? 'h5' : mode === 'jsapi' ? 'jsapi' : mode === 'app' ? 'app' : mode === undefined && isH5Device(device) ? 'h5' : 'qr'
  const method = `${wallet}_${kind}`
  if (!(PAY_METHODS as readonly string[]).includes(method)) fail(20022, `${wallet} has no ${mode ?? 'web'} payment (method ${method} is not enabled)`)
  return method
}

/** create and submit: the order, or the one already made with the same out_trade_no and parameters. */
export function createOrder(ctx: EpayContext, version: EpayVersion, params: Params, merchant: StoredMerchant, browser = false): PayOrder {
  const {store, pay} = ctx
  const payment = paymentOf(version, params, browser)
  const amount = moneyOf(params)
  const method = methodFor(payment.mode, payment.wallet, params.device)
  const fields: Record<string, unknown> = {
    mchNo: merchant.mchNo,
    appId: merchant.defaultAppId,
    bizOrderNo: params.out_trade_no,
    title: params.name,
    amount,
    method,
    returnUrl: params.return_url || undefined,
    attach: params.param || undefined,
    openId: params.sub_openid || undefined,
  }
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key]
  if (OPENID_METHODS.includes(method) && !fields.openId) fail(10506, `sub_openid: is required for ${method}`)
  const problems = checkFields(endpoints.pay.fields, {...fields, notifyUrl: params.notify_url || undefined, reqId: 'epay', reqTime: formatGmt8(ctx.now())})
  if (problems.length > 0) fail(10506, describeProblems(problems))
  // the rule of the /unipay/* notifyUrl and returnUrl: no credentials in them, never the sandbox itself
  for (const param of ['notify_url', 'return_url']) {
    const refusal = params[param] ? urlRefusal(params[param], ctx.publicUrl()) : undefined
    if (refusal) fail(10506, `${param}: ${refusal}`)
  }
  const {mode, word: wallet} = payment
  const epayWords = payment.epayWords || undefined
  const digest = canonicalString({version, mode, wallet, epayWords, device: params.device, amount, method, name: params.name, notify_url: params.notify_url, return_url: params.return_url, param: params.param, sub_openid: params.sub_openid})
  let existing: PayOrder | undefined
  try {
    existing = pay.find(merchant.mchNo, {bizOrderNo: params.out_trade_no})
  } catch (error) {
    if (!(error instanceof PlatformFailure)) throw error
  }
  if (existing) {
    if (ctx.record(existing.orderNo)?.digest !== digest) fail(10507, `out_trade_no ${params.out_trade_no} was already used with different parameters`)
    return existing
  }
  // notify_url stays out of the pay order: this module sends its own (easy_pay) notification.
  const order = pay.create(fields as PayRequest & Record<string, unknown>)
  const record: EpayOrder = {
    orderNo: order.orderNo,
    mchNo: order.mchNo,
    version,
    outTradeNo: order.bizOrderNo,
    wallet,
    mode,
    notifyUrl: params.notify_url || undefined,
    returnUrl: params.return_url || undefined,
    param: params.param || undefined,
    digest,
  }
  store.put(EPAY_ORDERS, order.orderNo, record)
  return order
}

/**
 * What create answers: the spec's data (orderId, orderNo, payBody, payBodyType) and the flat
 * fields. A link (jump, an h5 payment) takes the payer to the sandbox's payer page: the wallet's
 * own h5 host does not exist here, and shops send their payer to pay_info.
 */
export function createdFields(ctx: EpayContext, order: PayOrder): Result {
  const payBody = order.payBodyType === 'link' ? ctx.pageUrl(order.orderNo) : order.payBody
  const flat: Record<string, unknown> = {
    trade_no: order.orderNo,
    // signed beside trade_no, so that a verifying client can believe data.orderId too
    order_id: String(order.orderId),
    out_trade_no: order.bizOrderNo,
    type: echoedType(ctx.record(order.orderNo), order),
    money: centsToYuan(order.amount),
    status: order.status,
    pay_type: PAY_TYPE_OF_BODY[order.payBodyType] ?? order.payBodyType,
    pay_info: payBody,
    payurl: ctx.pageUrl(order.orderNo),
  }
  if (order.payBodyType === 'qr_code') flat.qrcode = payBody
  const {orderId, orderNo, payBodyType} = order
  return {data: {orderId, orderNo, payBody, payBodyType}, flat}
}

/** What a query answers (V1 act=order, V2 query): status 1 paid, 0 not; refundmoney only once something was refunded. */
export function orderFields(ctx: EpayContext, order: PayOrder): Result {
  const flat: Record<string, unknown> = {
    trade_no: order.orderNo,
    out_trade_no: order.bizOrderNo,
    api_trade_no: order.outOrderNo ?? '',
    type: echoedType(ctx.record(order.orderNo), order),
    pid: order.mchNo,
    addtime: formatGmt8(new Date(order.createdAt)),
    endtime: order.payTime ?? '',
    name: order.title,
    money: centsToYuan(order.amount),
    status: order.status === 'success' ? 1 : 0,
    param: order.attach ?? '',
    buyer: order.buyerId ?? '',
  }
  // Accepted refunds reserve their amount from the refundable balance, which is 0 until the
  // order is paid: only a paid order's shortfall is what was refunded.
  if (order.status === 'success' && order.refundableBalance < order.amount) flat.refundmoney = centsToYuan(order.amount - order.refundableBalance)
  const {orderNo, bizOrderNo, status, amount, realAmount, payTime, refundStatus, refundableBalance} = payOrderResult(order)
  return {data: {orderNo, bizOrderNo, status, amount, realAmount, payTime, refundStatus, refundableBalance}, flat}
}

/**
 * An order made here is paid only with a wallet the protocol has a word for, whichever page the
 * payer uses (its cashier, the aggregate QR, `sandbox pay`): everything its client receives
 * about the order names that wallet, and an epay client never receives a neutral word.
 */
export function payOnlyWithWordedWallets(ctx: EpayContext): void {
  ctx.pay.walletChecks.push((order, wallet) => {
    if (!ctx.record(order.orderNo) || WORD_OF_WALLET[wallet]) return
    const offered = PAYER_WALLETS.map((w) => `${w} (${WORD_OF_WALLET[w]})`).join(' or ')
    fail(10506, `wallet: order ${order.orderNo} was made through the epay module, whose clients have no word for ${wallet}: pay it with ${offered}`)
  })
}
