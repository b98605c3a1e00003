// Refunds: accepted against a success order by reserving the amount from its
// refundableBalance (so concurrent refunds can never exceed what was paid), settled by the
// channel a moment later, the amount given back on fail/close, the order's refund marker kept
// right, and refund.* events sent to the payment order's notifyUrl.
import {canonicalString} from '../protocol/canonical.js'
import {compactGmt8, formatGmt8, isoGmt8, parseGmt8} from '../protocol/time.js'
import type {RefundRequest} from '../protocol/schemas.js'
import {fail} from './errors.js'
import type {Notifier} from './notifier.js'
import {productOf, type PayOrder, type PayService} from './pay.js'
import type {Store} from './store.js'

type RefundStatus = 'progress' | 'success' | 'fail' | 'close'

/**
 * Test values in `reason` (documented in the README): the channel's answer for this refund.
 * `test:sync`: slow, but the channel already refunded, so a sync corrects it to success.
 */
const REFUND_TEST_REASONS: Record<string, 'fail' | 'close' | 'slow' | 'sync'> = {'test:fail': 'fail', 'test:close': 'close', 'test:slow': 'slow', 'test:sync': 'sync'}
const SETTLE_AFTER_MS = 1000
const SLOW_SETTLE_AFTER_MS = 10 * 60 * 1000

export interface RefundOrder {
  id: number
  refundNo: string
  bizRefundNo: string
  mchNo: string
  appId: string
  orderNo: string
  tradeNo: string
  bizOrderNo: string
  outOrderNo?: string
  outRefundNo?: string
  title: string
  channel: string
  product?: string
  amount: number
  orderAmount: number
  currency: string
  reason?: string
  status: RefundStatus
  finishTime?: string
  errorMsg?: string
  notifyUrl?: string
  attach?: string
  clientIp?: string
  storeNo?: string
  createTime: string
  createdAtMs: number
  /** Epoch ms when the channel answers on its own; undefined once final. */
  settleAt?: number
  requestDigest: string
}

export function refundResult(refund: RefundOrder) {
  const {refundNo, bizRefundNo, status, errorMsg} = refund
  return {refundNo, bizRefundNo, status, errorMsg}
}

export function refundOrderResult(refund: RefundOrder) {
  const {refundNo, bizRefundNo, tradeNo, bizOrderNo, outRefundNo, amount, orderAmount, status, reason, finishTime, errorMsg} = refund
  return {refundNo, bizRefundNo, tradeNo, bizOrderNo, outRefundNo, amount, orderAmount, status, reason, finishTime, errorMsg}
}

/** The management API's form of the record: every time ISO 8601 with offset (notes §6), finishTime too. */
export function refundRecord(refund: RefundOrder) {
  const {
    id, mchNo, appId, refundNo, bizRefundNo, tradeNo, bizOrderNo, outOrderNo, outRefundNo, title, channel, product, amount,
    orderAmount, currency, reason, status, finishTime, errorMsg, notifyUrl, attach, clientIp, storeNo, createTime,
  } = refund
  return {
    id, mchNo, appId, refundNo, bizRefundNo, tradeNo, bizOrderNo, outOrderNo, outRefundNo, title, channel, product, amount,
    orderAmount, currency, reason, status, finishTime: finishTime && isoGmt8(parseGmt8(finishTime)!), errorMsg, notifyUrl, attach, clientIp, storeNo,
    createTime,
  }
}

interface RefundDeps {
  store: Store
  pay: PayService
  notifier: Notifier
  now: () => Date
  timeScale: number
}

export class RefundService {
  private readonly byOrder = new Map<string, Set<string>>()
  private readonly byBizRefundNo = new Map<string, string>()
  private readonly inProgress = new Set<string>()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly deps: RefundDeps) {
    for (const refund of deps.store.values<RefundOrder>('refunds')) this.index(refund)
  }

  start(): void {
    this.timer = setInterval(() => this.deps.store.background(() => this.settleDue()), 100)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }

  create(request: RefundRequest, clientIp?: string): RefundOrder {
    const {store, pay, now, timeScale} = this.deps
    const order = pay.findForRefund(request.mchNo, request)
    const bizRefundNo = request.bizRefundNo ?? `R${compactGmt8(now())}${String(this.nextSequence()).padStart(6, '0')}`
    const digest = canonicalString({amount: request.amount, reason: request.reason, orderNo: order.orderNo})
    const existingNo = this.byBizRefundNo.get(`${order.orderNo}\u0000${bizRefundNo}`)
    if (existingNo) {
      const existing = store.get<RefundOrder>('refunds', existingNo)!
      if (existing.requestDigest !== digest) fail(10507, `bizRefundNo ${bizRefundNo} was already used for this order with different parameters`)
      return existing
    }
    if (order.status !== 'success') fail(20044, `order ${order.orderNo} is ${order.status}; only a success order can be refunded`)
    if (request.amount > order.refundableBalance) {
      fail(20060, `refund amount ${request.amount} is over the refundable balance ${order.refundableBalance} of order ${order.orderNo}`)
    }
    const seq = this.nextSequence()
    const created = now()
    const test = request.reason ? REFUND_TEST_REASONS[request.reason] : undefined
    const refund: RefundOrder = {
      id: 2_000_000_000_000_000 + seq,
      refundNo: `RF${compactGmt8(created)}${String(seq).padStart(6, '0')}`,
      bizRefundNo,
      mchNo: order.mchNo,
      appId: order.appId,
      orderNo: order.orderNo,
      tradeNo: order.tradeNo,
      bizOrderNo: order.bizOrderNo,
      outOrderNo: order.outOrderNo,
      title: order.title,
      channel: order.channel,
      product: productOf(order.method),
      amount: request.amount,
      orderAmount: order.amount,
      currency: order.currency,
      reason: request.reason,
      status: 'progress',
      notifyUrl: order.notifyUrl,
      attach: order.attach,
      clientIp,
      storeNo: order.storeNo,
      createTime: isoGmt8(created),
      createdAtMs: created.getTime(),
      settleAt: created.getTime() + (test === 'slow' || test === 'sync' ? SLOW_SETTLE_AFTER_MS : SETTLE_AFTER_MS) / timeScale,
      requestDigest: digest,
    }
    // Reserve first: the balance can never go below zero, whatever arrives concurrently.
    store.put('refunds', refund.refundNo, refund)
    this.index(refund)
    this.updateOrder({...order, refundableBalance: order.refundableBalance - refund.amount})
    return refund
  }

  find(mchNo: string, ref: {refundNo?: string; bizRefundNo?: string}): RefundOrder {
    const {store} = this.deps
    if (!ref.refundNo) {
      // bizRefundNo is unique per order only: never answer one of several silently
      const same = store.values<RefundOrder>('refunds').filter((r) => r.mchNo === mchNo && r.bizRefundNo === ref.bizRefundNo)
      if (same.length > 1) {
        fail(10506, `bizRefundNo ${ref.bizRefundNo} is used on ${same.length} orders (${same.map((r) => `${r.bizOrderNo}: ${r.refundNo}`).join(', ')}); give the refundNo of the one you mean`)
      }
    }
    const refund = ref.refundNo
      ? store.get<RefundOrder>('refunds', ref.refundNo)
      : store.get<RefundOrder>('refunds', this.byBizRefundNo.get(`${mchNo}\u0000${ref.bizRefundNo}`) ?? '')
    if (!refund || refund.mchNo !== mchNo) return fail(10405, 'refund not found')
    return refund
  }

  /** Any merchant's refund by refundNo or bizRefundNo: the channel's side, for `sandbox refund settle`. */
  findAnyMerchant(ref: string): RefundOrder {
    const {store} = this.deps
    const refund = store.get<RefundOrder>('refunds', ref) ?? store.values<RefundOrder>('refunds').find((r) => r.bizRefundNo === ref)
    return refund ?? fail(10405, `no refund ${ref}`)
  }

  all(): RefundOrder[] {
    return this.deps.store.values<RefundOrder>('refunds')
  }

  /** Asks the channel (refund sync): only a `test:sync` refund in progress differs, and is corrected to success. */
  sync(refund: RefundOrder): {orderStatus: RefundStatus; adjust: boolean} {
    if (refund.status !== 'progress' || refund.reason !== 'test:sync') return {orderStatus: refund.status, adjust: false}
    return {orderStatus: this.settle(refund, 'success').status, adjust: true}
  }

  /** The channel's answer. */
  settle(refund: RefundOrder, outcome: 'success' | 'fail' | 'close'): RefundOrder {
    if (refund.status !== 'progress') fail(20044, `refund ${refund.refundNo} is already ${refund.status}`)
    const {store, pay, now} = this.deps
    const settled: RefundOrder = {
      ...refund,
      status: outcome,
      settleAt: undefined,
      finishTime: formatGmt8(now()),
      outRefundNo: outcome === 'success' ? `CHR${refund.refundNo.slice(2)}` : refund.outRefundNo,
      errorMsg: outcome === 'fail' ? 'the channel refused the refund (sandbox)' : outcome === 'close' ? 'the refund was not confirmed in time (sandbox)' : undefined,
    }
    store.put('refunds', settled.refundNo, settled)
    this.inProgress.delete(settled.refundNo)
    const order = pay.find(refund.mchNo, {orderNo: refund.orderNo})
    this.updateOrder(outcome === 'success' ? order : {...order, refundableBalance: order.refundableBalance + refund.amount})
    if (settled.notifyUrl) {
      this.deps.notifier.emit({
        event: `refund.${outcome}`,
        url: settled.notifyUrl,
        mchNo: settled.mchNo,
        appId: settled.appId || undefined,
        data: {...refundOrderResult(settled), orderNo: settled.orderNo, attach: settled.attach},
      })
    }
    return settled
  }

  /** The pay order with its refund marker recomputed from its refunds. */
  private updateOrder(order: PayOrder): void {
    const refunds = [...(this.byOrder.get(order.orderNo) ?? [])].map((no) => this.deps.store.get<RefundOrder>('refunds', no)!)
    const refundStatus = refunds.some((r) => r.status === 'progress')
      ? 'refunding'
      : refunds.some((r) => r.status === 'success')
        ? order.refundableBalance === 0
          ? 'refunded'
          : 'partial_refund'
        : 'no_refund'
    this.deps.pay.update({...order, refundStatus})
  }

  settleDue(): void {
    const nowMs = this.deps.now().getTime()
    for (const refundNo of this.inProgress) {
      const refund = this.deps.store.get<RefundOrder>('refunds', refundNo)!
      if (refund.settleAt === undefined || refund.settleAt > nowMs) continue
      const test = refund.reason ? REFUND_TEST_REASONS[refund.reason] : undefined
      this.settle(refund, test === 'fail' ? 'fail' : test === 'close' ? 'close' : 'success')
    }
  }

  private index(refund: RefundOrder): void {
    let set = this.byOrder.get(refund.orderNo)
    if (!set) this.byOrder.set(refund.orderNo, (set = new Set()))
    set.add(refund.refundNo)
    if (refund.status === 'progress') this.inProgress.add(refund.refundNo)
    this.byBizRefundNo.set(`${refund.orderNo}\u0000${refund.bizRefundNo}`, refund.refundNo)
    this.byBizRefundNo.set(`${refund.mchNo}\u0000${refund.bizRefundNo}`, refund.refundNo)
  }

  private nextSequence(): number {
    const seq = (this.deps.store.get<number>('meta', 'refundSequence') ?? 0) + 1
    this.deps.store.put('meta', 'refundSequence', seq)
    return seq
  }
}
