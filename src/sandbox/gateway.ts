// Gateway orders (hosted cashier and aggregate QR pages): idempotent pre-pay on mchNo +
// bizOrderNo, the payer's moves on the pages (picking a method locks it; paying ends it),
// close, expiry, and pay.* events. Kept apart from payment orders (own collection, own GW
// numbers) until paid: the paid order's trade is then recorded as a payment (notes §4).
import type {GatewayOrderResult} from '../protocol/answers.js'
import {canonicalString} from '../protocol/canonical.js'
import type {GatewayPrePayRequest} from '../protocol/schemas.js'
import {compactGmt8, formatGmt8, parseGmt8} from '../protocol/time.js'
import {DueQueue} from './due.js'
import {fail} from './errors.js'
import type {Notifier} from './notifier.js'
import {checkExpiry, productOf, type PayService} from './pay.js'
import type {Store} from './store.js'

export type GatewayStatus = 'wait_pay' | 'paying' | 'paid' | 'failed' | 'closed' | 'expired'
type GatewayType = 'cashier' | 'aggregate'
const WALLETS = ['walletA', 'walletB', 'walletC', 'walletD'] as const
export type Wallet = (typeof WALLETS)[number]

/** Test value: a title containing this makes the payment fail when the payer pays. */
const GATEWAY_FAIL_TITLE = 'test:fail'
const DEFAULT_EXPIRY_MS = 30 * 60 * 1000
const OPEN: GatewayStatus[] = ['wait_pay', 'paying']
const FUND_STATUS: Record<GatewayStatus, string> = {
  wait_pay: 'init',
  paying: 'processing',
  paid: 'success',
  failed: 'fail',
  closed: 'close',
  expired: 'close',
}
/** Fields that do not make a request a different order: common fields, and the page type, whose
 * effective value is the stored one (the spec's "effective gatewayType"). */
const NOT_COMPARED = new Set(['mchNo', 'appId', 'channelMchNo', 'reqId', 'nonceStr', 'reqTime', 'clientIp', 'sign', 'gatewayPayType'])

/**
 * A stored gateway order: the spec's GatewayOrderResult (fundStatus follows from status), its
 * fields as the sandbox always has them, and what it keeps besides.
 */
export interface GatewayOrder extends Omit<GatewayOrderResult, 'fundStatus'> {
  mchNo: string
  appId: string
  gatewayType: GatewayType
  title: string
  amount: number
  currency: string
  status: GatewayStatus
  expiredTime: string
  notifyUrl?: string
  extraParam?: string
  storeNo?: string
  goodsDetail?: unknown[]
  allocation: boolean
  /** Why a payment failed; shown on the page (GatewayOrderResult has no such field). */
  errorMsg?: string
  requestDigest: string
  createdAt: string
}

/** GatewayOrderResult: the 18 fields, those the order has no value for left out (as in every answer). */
export function gatewayOrderResult(order: GatewayOrder): GatewayOrderResult {
  return {
    orderNo: order.orderNo,
    bizOrderNo: order.bizOrderNo,
    gatewayType: order.gatewayType,
    title: order.title,
    description: order.description,
    amount: order.amount,
    currency: order.currency,
    status: order.status,
    expiredTime: order.expiredTime,
    payTime: order.payTime,
    channel: order.channel,
    method: order.method,
    product: order.product,
    tradeNo: order.tradeNo,
    outOrderNo: order.outOrderNo,
    fundStatus: FUND_STATUS[order.status],
    attach: order.attach,
    returnUrl: order.returnUrl,
  }
}

export const isOpen = (order: GatewayOrder) => OPEN.includes(order.status)

/** Page paths of an order: the H5 page and the mini-program mapping link. */
export function gatewayPaths(order: Pick<GatewayOrder, 'orderNo' | 'gatewayType'>): {h5: string; mini: string} {
  const no = encodeURIComponent(order.orderNo)
  return order.gatewayType === 'cashier' ? {h5: `/cashier/${no}`, mini: `/cm/${no}`} : {h5: `/aggregate/${no}`, mini: `/am/${no}`}
}

/**
 * The methods an order offers. The cashier lists each wallet's H5 payment; the aggregate page,
 * opened in a wallet's own browser, pays in that wallet (jsapi). walletC has no allocation
 * receiver types in the spec, so allocation orders leave it out.
 */
export function methodsFor(order: GatewayOrder, wallet?: Wallet): string[] {
  const wallets = WALLETS.filter((w) => !(order.allocation && w === 'walletC'))
  if (order.gatewayType === 'cashier') return wallets.map((w) => `${w}_h5`)
  return wallet && wallets.includes(wallet) ? [`${wallet}_jsapi`] : []
}

interface GatewayDeps {
  store: Store
  notifier: Notifier
  pay: PayService
  now: () => Date
  publicUrl: () => string
  clockOffsetMs?: () => number
}

export class GatewayService {
  private readonly byBizOrderNo = new Map<string, string>()
  /** GT... trade number -> GW... order number, once a method is picked (notes §3). */
  private readonly byTradeNo = new Map<string, string>()
  /** Open orders by expiry: the sweep looks only at those due. */
  private readonly expiries = new DueQueue()
  private expiryTimer: NodeJS.Timeout | undefined

  constructor(private readonly deps: GatewayDeps) {
    for (const order of deps.store.values<GatewayOrder>('gatewayOrders')) {
      this.byBizOrderNo.set(`${order.mchNo}\u0000${order.bizOrderNo}`, order.orderNo)
      if (order.tradeNo) this.byTradeNo.set(order.tradeNo, order.orderNo)
      if (isOpen(order)) this.dueAt(order)
    }
  }

  startExpiry(): void {
    this.expiryTimer = setInterval(() => this.deps.store.background(() => this.expireDue()), 1000)
    this.expiryTimer.unref()
    this.expireDue()
  }

  stop(): void {
    if (this.expiryTimer) clearInterval(this.expiryTimer)
  }

  /** GatewayPrePayResult, with the links under the sandbox's current address. */
  prePayResult(order: GatewayOrder) {
    const {h5, mini} = gatewayPaths(order)
    const base = this.deps.publicUrl()
    const {orderNo, bizOrderNo, status, gatewayType, expiredTime} = order
    return {orderNo, bizOrderNo, status, gatewayType, h5Url: `${base}${h5}`, miniUrl: `${base}${mini}`, expiredTime}
  }

  prePay(request: GatewayPrePayRequest & Record<string, unknown>, appId: string): GatewayOrder {
    const {now, store} = this.deps
    const digest = canonicalString(Object.fromEntries(Object.entries(request).filter(([key]) => !NOT_COMPARED.has(key))))
    const key = `${request.mchNo}\u0000${request.bizOrderNo}`
    const existingNo = this.byBizOrderNo.get(key)
    if (existingNo) {
      const existing = this.find(request.mchNo, {orderNo: existingNo})
      if (existing.requestDigest !== digest) fail(10507, `bizOrderNo ${request.bizOrderNo} was already used with different parameters`)
      return existing
    }
    if (this.deps.pay.hasBizOrderNo(request.mchNo, request.bizOrderNo)) {
      const payment = this.deps.pay.find(request.mchNo, {bizOrderNo: request.bizOrderNo})
      fail(10507, `bizOrderNo ${request.bizOrderNo} is already used by payment order ${payment.orderNo}: pay orders and gateway orders share one bizOrderNo space per merchant`)
    }
    const createdAt = now()
    checkExpiry(request.expiredTime, createdAt, this.deps.clockOffsetMs?.())
    const seq = (store.get<number>('meta', 'gatewaySequence') ?? 0) + 1
    store.put('meta', 'gatewaySequence', seq)
    const order: GatewayOrder = {
      orderNo: `GW${compactGmt8(createdAt)}${String(seq).padStart(6, '0')}`,
      bizOrderNo: request.bizOrderNo,
      mchNo: request.mchNo,
      appId,
      gatewayType: request.gatewayPayType,
      title: request.title,
      description: request.description,
      amount: request.amount,
      currency: request.currency ?? 'cny',
      status: 'wait_pay',
      expiredTime: request.expiredTime ?? formatGmt8(new Date(createdAt.getTime() + DEFAULT_EXPIRY_MS)),
      attach: request.attach,
      returnUrl: request.returnUrl,
      notifyUrl: request.notifyUrl,
      extraParam: request.extraParam,
      storeNo: request.storeNo,
      goodsDetail: request.goodsDetail,
      allocation: request.allocation ?? false,
      requestDigest: digest,
      createdAt: createdAt.toISOString(),
    }
    this.save(order)
    this.byBizOrderNo.set(key, order.orderNo)
    this.dueAt(order)
    return order
  }

  private dueAt(order: GatewayOrder): void {
    const expiry = parseGmt8(order.expiredTime)
    if (expiry) this.expiries.add(order.orderNo, expiry.getTime())
  }

  /** The gateway order holding a bizOrderNo, if any. */
  orderNoOf(mchNo: string, bizOrderNo: string): string | undefined {
    return this.byBizOrderNo.get(`${mchNo}\u0000${bizOrderNo}`)
  }

  /** orderNo wins over bizOrderNo (spec); an orderNo may be the order's GT... trade number. */
  find(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string}): GatewayOrder {
    const orderNo = ref.orderNo ? (this.byTradeNo.get(ref.orderNo) ?? ref.orderNo) : this.byBizOrderNo.get(`${mchNo}\u0000${ref.bizOrderNo ?? ''}`)
    const order = orderNo ? this.deps.store.get<GatewayOrder>('gatewayOrders', orderNo) : undefined
    if (!order || order.mchNo !== mchNo) return fail(20041, 'gateway order not found')
    return this.expireIfDue(order)
  }

  /** The order behind a page link (the link carries only the order number). */
  view(orderNo: string): GatewayOrder | undefined {
    const order = this.deps.store.get<GatewayOrder>('gatewayOrders', orderNo)
    return order && this.expireIfDue(order)
  }

  /** The payer picks a method: wait_pay -> paying; the method is then locked. */
  pick(orderNo: string, method: string, wallet?: Wallet): GatewayOrder {
    const order = this.view(orderNo) ?? fail(20041, `no gateway order ${orderNo}`)
    if (order.status === 'paying') {
      if (order.method === method) return order
      fail(20044, `this order is already being paid with ${order.method}; the method is locked and cannot be changed to ${method}`)
    }
    if (order.status !== 'wait_pay') fail(20044, `this order is ${order.status}; it can no longer be paid`)
    if (!methodsFor(order, wallet).includes(method)) fail(10506, `method ${method} is not offered for this order`)
    const channel = method.slice(0, method.indexOf('_'))
    return this.save({
      ...order,
      status: 'paying',
      channel,
      method,
      product: productOf(method),
      tradeNo: `GT${order.orderNo.slice(2)}`,
    })
  }

  /** The payer pays with the picked method: paying -> paid, or failed for the test title or when told to fail. */
  pay(orderNo: string, outcome: 'success' | 'fail' = 'success'): GatewayOrder {
    const order = this.view(orderNo) ?? fail(20041, `no gateway order ${orderNo}`)
    if (order.status === 'wait_pay') fail(20044, 'pick a payment method first')
    if (order.status !== 'paying') fail(20044, `this order is ${order.status}; it can no longer be paid`)
    if (outcome === 'fail' || order.title.includes(GATEWAY_FAIL_TITLE)) {
      const reason = outcome === 'fail'
        ? 'the payer\'s payment failed (sandbox)'
        : `the wallet declined the payment (sandbox test value "${GATEWAY_FAIL_TITLE}" in the title)`
      return this.transition({...order, status: 'failed', errorMsg: reason}, 'pay.fail')
    }
    const paid: GatewayOrder = {...order, status: 'paid', payTime: formatGmt8(this.deps.now()), outOrderNo: `CH${order.orderNo}`}
    this.deps.pay.recordGatewayTrade({
      orderNo: paid.orderNo,
      bizOrderNo: paid.bizOrderNo,
      tradeNo: paid.tradeNo!,
      outOrderNo: paid.outOrderNo,
      mchNo: paid.mchNo,
      appId: paid.appId,
      title: paid.title,
      description: paid.description,
      channel: paid.channel!,
      method: paid.method!,
      amount: paid.amount,
      currency: paid.currency,
      payTime: paid.payTime,
      expiredTime: paid.expiredTime,
      storeNo: paid.storeNo,
      attach: paid.attach,
      notifyUrl: paid.notifyUrl,
      returnUrl: paid.returnUrl,
      allocation: paid.allocation,
    })
    return this.transition(paid, 'pay.success')
  }

  /**
   * The payer's whole visit in one move (`sandbox pay GW...`): picks the method (given, or the
   * wallet's method for this page type) unless one is already locked, then pays.
   */
  payerPays(orderRef: string, outcome: 'success' | 'fail', method?: string, wallet?: string): GatewayOrder {
    const order = this.findAnyMerchant(orderRef) ?? fail(20041, `no order ${orderRef}`)
    if (order.status === 'wait_pay') {
      const chosenWallet = (wallet ?? method?.slice(0, method.indexOf('_')) ?? 'walletA') as Wallet
      if (!WALLETS.includes(chosenWallet)) fail(10506, `wallet ${chosenWallet} is unknown; one of ${WALLETS.join(', ')}`)
      const chosen = method ?? methodsFor(order, chosenWallet).find((m) => m.startsWith(`${chosenWallet}_`)) ?? fail(10506, `${chosenWallet} cannot pay this order`)
      this.pick(order.orderNo, chosen, chosenWallet)
    } else if (order.status === 'paying' && method && method !== order.method) {
      fail(20044, `this order is already being paid with ${order.method}; the method is locked and cannot be changed to ${method}`)
    }
    return this.pay(order.orderNo, outcome)
  }

  /** A gateway order by its number or bizOrderNo, whatever the merchant (the payer's side). */
  findAnyMerchant(orderRef: string): GatewayOrder | undefined {
    return this.view(orderRef) ?? this.view(this.deps.store.values<GatewayOrder>('gatewayOrders').find((o) => o.bizOrderNo === orderRef)?.orderNo ?? '')
  }

  /** Closes an open order: `/unipay/close` with a gateway orderNo, or the sandbox control API. */
  close(order: GatewayOrder): GatewayOrder {
    if (!isOpen(order)) fail(20044, `order ${order.orderNo} is ${order.status}; only wait_pay or paying orders can be closed`)
    return this.transition({...order, status: 'closed'}, 'pay.close')
  }

  private transition(order: GatewayOrder, event: string): GatewayOrder {
    this.save(order)
    if (order.notifyUrl) {
      this.deps.notifier.emit({event, url: order.notifyUrl, mchNo: order.mchNo, appId: order.appId || undefined, data: {...gatewayOrderResult(order)}})
    }
    return order
  }

  private save(order: GatewayOrder): GatewayOrder {
    this.deps.store.put('gatewayOrders', order.orderNo, order)
    if (order.tradeNo) this.byTradeNo.set(order.tradeNo, order.orderNo)
    return order
  }

  private expireIfDue(order: GatewayOrder): GatewayOrder {
    if (!isOpen(order)) return order
    const expiry = parseGmt8(order.expiredTime)
    if (!expiry || expiry.getTime() > this.deps.now().getTime()) return order
    return this.transition({...order, status: 'expired'}, 'pay.close')
  }

  expireDue(): void {
    for (const orderNo of this.expiries.takeDue(this.deps.now().getTime())) {
      const order = this.deps.store.get<GatewayOrder>('gatewayOrders', orderNo)
      if (order) this.expireIfDue(order)
    }
  }
}
