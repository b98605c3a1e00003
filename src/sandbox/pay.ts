// Payment orders: creation with idempotent bizOrderNo, close/cancel, expiry and the payer's
// moves. Which method a request asks for is pay-method.ts; what each method gives the payer (its
// payBody) is pay-body.ts.
import {randomBytes} from 'node:crypto'
import {canonicalString} from '../protocol/canonical.js'
import type {PayBodyType, PayStatus} from '../protocol/enums.js'
import type {PayRequest} from '../protocol/schemas.js'
import {compactGmt8, formatGmt8, parseGmt8} from '../protocol/time.js'
import {DueQueue} from './due.js'
import {payBody} from './pay-body.js'
import {resolveMethod} from './pay-method.js'
import {fail} from './errors.js'
import type {Notifier} from './notifier.js'
import type {Store} from './store.js'

const DEFAULT_EXPIRY_MS = 30 * 60 * 1000
const OPEN: PayStatus[] = ['wait', 'progress']
/** Test value: a title containing this makes the channel's record say paid, whatever the platform's says; a sync corrects it. */
const SYNC_TEST_VALUE = 'test:sync'
/** Test value: a barcode whose last four digits are 9999 is declined by the channel. */
const DECLINED_BARCODE_SUFFIX = '9999'

export interface PayOrder {
  orderId: number
  orderNo: string
  bizOrderNo: string
  tradeNo: string
  outOrderNo?: string
  mchNo: string
  appId: string
  title: string
  description?: string
  channel: string
  method: string
  limitPay?: string
  amount: number
  realAmount?: number
  refundableBalance: number
  currency: string
  status: PayStatus
  refundStatus: string
  provider?: string
  payTime?: string
  closeTime?: string
  expiredTime: string
  terminalNo?: string
  storeNo?: string
  buyerId?: string
  attach?: string
  errorMsg?: string
  notifyUrl?: string
  returnUrl?: string
  allocation: boolean
  payBody: string
  payBodyType: PayBodyType
  /** Canonical string of the business fields, to tell a repeat from a conflicting reuse. */
  requestDigest: string
  createdAt: string
}

const COMMON = new Set(['mchNo', 'appId', 'channelMchNo', 'reqId', 'nonceStr', 'reqTime', 'clientIp', 'sign'])

export function payResult(order: PayOrder) {
  const {orderId, bizOrderNo, orderNo, tradeNo, status, payBody, payBodyType} = order
  return {orderId, bizOrderNo, orderNo, tradeNo, status, payBody, payBodyType}
}

export function payOrderResult(order: PayOrder) {
  const {
    orderNo, bizOrderNo, tradeNo, outOrderNo, title, description, channel, method, limitPay, amount, realAmount,
    refundableBalance, status, refundStatus, provider, payTime, closeTime, expiredTime, terminalNo, storeNo, buyerId,
    attach, errorMsg,
  } = order
  return {
    orderNo, bizOrderNo, tradeNo, outOrderNo, title, description, channel, method, limitPay, amount, realAmount,
    refundableBalance, status, refundStatus, provider, payTime, closeTime, expiredTime, terminalNo, storeNo, buyerId,
    attach, errorMsg,
  }
}

/** What a paid gateway order brings to its payment. */
type GatewayTrade = Pick<PayOrder, 'orderNo' | 'bizOrderNo' | 'tradeNo' | 'outOrderNo' | 'mchNo' | 'appId' | 'title' | 'description' | 'channel' | 'method' | 'amount' | 'currency' | 'payTime' | 'expiredTime' | 'storeNo' | 'attach' | 'notifyUrl' | 'returnUrl' | 'allocation'>

interface PayDeps {
  store: Store
  notifier: Notifier
  now: () => Date
  publicUrl: () => string
  /** How far `sandbox clock advance` moved the clock, for the messages it explains. */
  clockOffsetMs?: () => number
  /** The gateway order holding a bizOrderNo, if any: pay and gateway orders share one space (notes §4). */
  gatewayOrderNoOf?: (mchNo: string, bizOrderNo: string) => string | undefined
}

/** The product code of a method (`walletA_h5` -> `H5`), the word gateway orders and refund records both use. */
export const productOf = (method: string) => method.slice(method.indexOf('_') + 1).toUpperCase()

/**
 * Refuses an expiredTime that is not after the sandbox clock; when `sandbox clock advance` moved
 * that clock, a time still ahead of the real one is refused too, and the message says why.
 */
export function checkExpiry(expiredTime: string | undefined, now: Date, clockOffsetMs = 0): void {
  if (!expiredTime || parseGmt8(expiredTime)!.getTime() > now.getTime()) return
  const advanced = clockOffsetMs > 0 ? `: the sandbox clock was moved ahead (\`sandbox clock advance\`) and is at ${formatGmt8(now)} GMT+8` : ''
  fail(10506, `expiredTime: must be in the future${advanced}`)
}

export class PayService {
  private readonly byBizOrderNo = new Map<string, string>()
  /** tradeNo -> orderNo: a trade number is accepted wherever an orderNo is (notes §3). */
  private readonly byTradeNo = new Map<string, string>()
  /** Open orders by expiry: the sweep looks only at those due. */
  private readonly expiries = new DueQueue()
  private expiryTimer: NodeJS.Timeout | undefined
  /** Told of every order event once stored: the compatibility module sends its easy_pay notification from here. */
  readonly listeners: ((order: PayOrder, event: string) => void)[] = []
  /** Asked before the payer pays an auto-routed order with a wallet; one may refuse it (the compatibility module's orders take only the wallets it has words for). */
  readonly walletChecks: ((order: PayOrder, wallet: string) => void)[] = []

  constructor(private readonly deps: PayDeps) {
    for (const order of deps.store.values<PayOrder>('payOrders')) {
      this.byBizOrderNo.set(`${order.mchNo}\u0000${order.bizOrderNo}`, order.orderNo)
      this.byTradeNo.set(order.tradeNo, order.orderNo)
      if (OPEN.includes(order.status)) this.dueAt(order)
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

  create(request: PayRequest & Record<string, unknown>): PayOrder {
    const {now} = this.deps
    const business: Record<string, unknown> = {}
    for (const key of Object.keys(request)) if (!COMMON.has(key)) business[key] = request[key]
    const digest = canonicalString(business)
    const key = `${request.mchNo}\u0000${request.bizOrderNo}`
    const existingNo = this.byBizOrderNo.get(key)
    if (existingNo) {
      const existing = this.find(request.mchNo, {orderNo: existingNo})
      // a paid gateway order's trade has no request of its own (requestDigest '')
      if (existing.requestDigest === '') fail(10507, sharedSpace(request.bizOrderNo, `gateway order ${existing.orderNo}`))
      if (existing.requestDigest !== digest) {
        fail(10507, `bizOrderNo ${request.bizOrderNo} was already used with different parameters`)
      }
      return existing
    }
    const gatewayOrderNo = this.deps.gatewayOrderNoOf?.(request.mchNo, request.bizOrderNo)
    if (gatewayOrderNo) fail(10507, sharedSpace(request.bizOrderNo, `gateway order ${gatewayOrderNo}`))
    // the same rule as a gateway order: an order that would be born expired is refused
    checkExpiry(request.expiredTime, now(), this.deps.clockOffsetMs?.())
    const method = resolveMethod(request)
    if (method.startsWith('card')) fail(20022, `method ${method} is not enabled for this merchant`)
    const wallet = method.indexOf('_')
    const channel = method === 'aggregate_pay_qrcode' ? 'aggregate' : wallet < 0 ? method : method.slice(0, wallet)
    const seq = this.nextSequence()
    const stamp = compactGmt8(now())
    const orderNo = `DP${stamp}${String(seq).padStart(6, '0')}`
    const createdAt = now()
    const expiredTime = request.expiredTime ?? formatGmt8(new Date(createdAt.getTime() + DEFAULT_EXPIRY_MS))
    const order: PayOrder = {
      orderId: 1_000_000_000_000_000 + seq,
      orderNo,
      bizOrderNo: request.bizOrderNo,
      tradeNo: `T${stamp}${String(seq).padStart(6, '0')}`,
      mchNo: request.mchNo,
      appId: request.appId ?? '',
      title: request.title,
      description: request.description,
      channel,
      method,
      limitPay: request.limitPay?.join(','),
      amount: request.amount,
      refundableBalance: 0,
      currency: request.currency ?? 'cny',
      status: 'progress',
      refundStatus: 'no_refund',
      provider: channel === 'aggregate' ? undefined : channel.toUpperCase(),
      expiredTime,
      terminalNo: request.terminal?.terminalNo,
      storeNo: request.terminal?.storeNo,
      attach: request.attach,
      notifyUrl: request.notifyUrl,
      returnUrl: request.returnUrl,
      allocation: request.allocation ?? false,
      payBody: '',
      payBodyType: 'qr_code',
      requestDigest: digest,
      createdAt: createdAt.toISOString(),
    }
    Object.assign(order, payBody(order, request, this.deps))
    if (method.endsWith('_barcode')) {
      const declined = request.authCode?.endsWith(DECLINED_BARCODE_SUFFIX)
      this.save(order)
      this.byBizOrderNo.set(key, orderNo)
      return declined ? this.finish(order, 'fail', 'barcode declined by the channel (sandbox test value)') : this.settlePaid(order)
    }
    this.save(order)
    this.byBizOrderNo.set(key, orderNo)
    return order
  }

  /**
   * The payment behind a paid gateway order (notes §4): stored under the gateway order number,
   * with its tradeNo, so that it is queried, refunded and split like any other. The gateway
   * already sent pay.success, so no event here. A direct payment that took the same bizOrderNo
   * first keeps it.
   */
  recordGatewayTrade(trade: GatewayTrade): PayOrder {
    const seq = this.nextSequence()
    const order: PayOrder = {
      ...trade,
      orderId: 1_000_000_000_000_000 + seq,
      realAmount: trade.amount,
      refundableBalance: trade.amount,
      status: 'success',
      refundStatus: 'no_refund',
      provider: trade.channel.toUpperCase(),
      buyerId: `buyer_${randomBytes(4).toString('hex')}`,
      payBody: '',
      payBodyType: 'link',
      requestDigest: '',
      createdAt: this.deps.now().toISOString(),
    }
    this.save(order)
    const key = `${order.mchNo}\u0000${order.bizOrderNo}`
    if (!this.byBizOrderNo.has(key)) this.byBizOrderNo.set(key, order.orderNo)
    return order
  }

  /** tradeNo wins over bizOrderNo, as the spec says for refunds. */
  findForRefund(mchNo: string, ref: {tradeNo?: string; bizOrderNo?: string}): PayOrder {
    if (ref.tradeNo) {
      const order = this.deps.store.get<PayOrder>('payOrders', this.byTradeNo.get(ref.tradeNo) ?? '')
      return order && order.mchNo === mchNo ? order : fail(20041, `trade ${ref.tradeNo} not found`)
    }
    return this.find(mchNo, {bizOrderNo: ref.bizOrderNo})
  }

  hasBizOrderNo(mchNo: string, bizOrderNo: string): boolean {
    return this.byBizOrderNo.has(`${mchNo}\u0000${bizOrderNo}`)
  }

  find(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string}): PayOrder {
    let order: PayOrder | undefined
    const {store} = this.deps
    if (ref.orderNo) order = store.get<PayOrder>('payOrders', ref.orderNo) ?? store.get<PayOrder>('payOrders', this.byTradeNo.get(ref.orderNo) ?? '')
    else if (ref.bizOrderNo) {
      const orderNo = this.byBizOrderNo.get(`${mchNo}\u0000${ref.bizOrderNo}`)
      order = orderNo ? store.get<PayOrder>('payOrders', orderNo) : undefined
    } else if (ref.outOrderNo) {
      order = store.values<PayOrder>('payOrders').find((o) => o.outOrderNo === ref.outOrderNo && o.mchNo === mchNo)
    }
    if (!order || order.mchNo !== mchNo) return fail(20041, 'trade not found')
    return this.expireIfDue(order)
  }

  /**
   * Asks the channel (pay sync). Its record differs from the platform's only for the test title:
   * the channel says paid, so an open, failed, closed or timed-out order becomes success, with
   * pay.success, and `adjust: true`.
   */
  sync(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string}, order = this.find(mchNo, ref)): {orderStatus: PayStatus; adjust: boolean} {
    const correctable: PayStatus[] = ['progress', 'fail', 'close', 'timeout']
    if (!order.title.includes(SYNC_TEST_VALUE) || !correctable.includes(order.status)) return {orderStatus: order.status, adjust: false}
    return {orderStatus: this.settlePaid({...order, errorMsg: undefined, closeTime: undefined}).status, adjust: true}
  }

  close(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string}, useCancel: boolean): PayOrder {
    const order = this.find(mchNo, ref)
    if (!OPEN.includes(order.status)) {
      fail(20044, `order ${order.orderNo} is ${order.status}; only wait or progress orders can be ${useCancel ? 'cancelled' : 'closed'}`)
    }
    return this.finish(order, useCancel ? 'cancel' : 'close')
  }

  /** The payer's side, played by `sandbox pay`. */
  payerPays(orderRef: string, outcome: 'success' | 'fail', wallet = 'walletA'): PayOrder {
    const found = this.findAnyMerchant(orderRef)
    if (!OPEN.includes(found.status)) fail(20044, `order ${found.orderNo} is ${found.status}, so it cannot be paid`)
    // the wallet the payer picked goes into the stored order only with the payment itself
    if (found.channel === 'aggregate') for (const check of this.walletChecks) check(found, wallet)
    const order = found.channel === 'aggregate' ? {...found, channel: wallet, provider: wallet.toUpperCase()} : found
    return outcome === 'success' ? this.settlePaid(order) : this.finish(order, 'fail', 'the payer\'s payment failed (sandbox)')
  }

  /** An auto-routed payment (aggregate QR) by its number, for its payer page. */
  aggregateOrder(orderNo: string): PayOrder | undefined {
    const order = this.deps.store.get<PayOrder>('payOrders', orderNo)
    return order?.method === 'aggregate_pay_qrcode' ? this.expireIfDue(order) : undefined
  }

  findAnyMerchant(orderRef: string): PayOrder {
    const {store} = this.deps
    const direct = store.get<PayOrder>('payOrders', orderRef)
    const order = direct ?? store.values<PayOrder>('payOrders').find((o) => o.bizOrderNo === orderRef)
    if (!order) return fail(20041, `no order ${orderRef}`)
    return this.expireIfDue(order)
  }

  private settlePaid(order: PayOrder): PayOrder {
    const {now} = this.deps
    const paid: PayOrder = {
      ...order,
      status: 'success',
      payTime: formatGmt8(now()),
      realAmount: order.amount,
      refundableBalance: order.amount,
      outOrderNo: `CH${order.orderNo.slice(2)}`,
      buyerId: order.buyerId ?? `buyer_${randomBytes(4).toString('hex')}`,
    }
    return this.transition(paid, 'pay.success')
  }

  private finish(order: PayOrder, status: 'close' | 'cancel' | 'fail' | 'timeout', errorMsg?: string): PayOrder {
    const {now} = this.deps
    const next: PayOrder = {...order, status, errorMsg: errorMsg ?? order.errorMsg}
    // a timed-out order closed at its expiredTime, whenever the sweep noticed
    if (status !== 'fail') next.closeTime = status === 'timeout' ? order.expiredTime : formatGmt8(now())
    return this.transition(next, status === 'fail' ? 'pay.fail' : 'pay.close')
  }

  private transition(order: PayOrder, event: string): PayOrder {
    this.save(order)
    if (order.notifyUrl) {
      this.deps.notifier.emit({event, url: order.notifyUrl, mchNo: order.mchNo, appId: order.appId || undefined, data: payOrderResult(order)})
    }
    for (const listener of this.listeners) listener(order, event)
    return order
  }

  /** Stores a changed order (refund reservations); no event. */
  update(order: PayOrder): void {
    this.save(order)
  }

  private save(order: PayOrder): void {
    const known = this.byTradeNo.has(order.tradeNo)
    this.deps.store.put('payOrders', order.orderNo, order)
    this.byTradeNo.set(order.tradeNo, order.orderNo)
    // an order opens once, at its creation: its expiredTime never changes
    if (!known && OPEN.includes(order.status)) this.dueAt(order)
  }

  private dueAt(order: PayOrder): void {
    const expiry = parseGmt8(order.expiredTime)
    if (expiry) this.expiries.add(order.orderNo, expiry.getTime())
  }

  private expireIfDue(order: PayOrder): PayOrder {
    if (!OPEN.includes(order.status)) return order
    const expiry = parseGmt8(order.expiredTime)
    if (expiry && expiry.getTime() <= this.deps.now().getTime()) return this.finish(order, 'timeout')
    return order
  }

  expireDue(): void {
    for (const orderNo of this.expiries.takeDue(this.deps.now().getTime())) {
      const order = this.deps.store.get<PayOrder>('payOrders', orderNo)
      if (order) this.expireIfDue(order)
    }
  }

  private nextSequence(): number {
    const seq = (this.deps.store.get<number>('meta', 'paySequence') ?? 0) + 1
    this.deps.store.put('meta', 'paySequence', seq)
    return seq
  }
}

const sharedSpace = (bizOrderNo: string, holder: string) =>
  `bizOrderNo ${bizOrderNo} is already used by ${holder}: pay orders and gateway orders share one bizOrderNo space per merchant`
