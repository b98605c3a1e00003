// Allocations (splits): one per paid order created with allocation=true (another only after
// a partial or failed one, over what is still allocatable), to receivers bound beforehand, within the allocatable amount; processing
// until the channel answers per receiver: success, partial or fail, with alloc.* events.
import {canonicalString} from '../protocol/canonical.js'
import {yuanToCents} from '../protocol/money.js'
import type {BoundReceiver} from '../protocol/local-sandbox.js'
import type {AllocRequest} from '../protocol/schemas.js'
import {compactGmt8, formatGmt8} from '../protocol/time.js'
import {fail} from './errors.js'
import type {Notifier} from './notifier.js'
import type {PayService} from './pay.js'
import type {Store} from './store.js'

const SETTLE_AFTER_MS = 1000
/** Test value: a receiver account ending in this suffix is refused by the channel. */
export const FAILING_RECEIVER_SUFFIX = '_FAIL'


interface AllocDetail {
  receiverType: string
  receiverAccount: string
  receiverName?: string
  amount: number
  result: 'processing' | 'success' | 'fail'
  errorMsg?: string
  finishTime?: string
}

export interface Allocation {
  allocNo: string
  bizAllocNo: string
  mchNo: string
  appId: string
  orderNo: string
  tradeNo: string
  bizOrderNo: string
  title?: string
  description?: string
  attach?: string
  notifyUrl?: string
  /** The paid order's channel, and the channel's own number for the split once it answered. */
  channel?: string
  outAllocNo?: string
  /** Cents reserved from the order while processing or allocated once settled. */
  amountCents: number
  status: 'processing' | 'success' | 'partial' | 'fail'
  errorMsg?: string
  finishTime?: string
  details: AllocDetail[]
  settleAt?: number
  requestDigest: string
}

export function allocResult(a: Allocation) {
  return {allocNo: a.allocNo, bizAllocNo: a.bizAllocNo, status: a.status, errorMsg: a.errorMsg}
}

/** Which unit a merchant's allocation amounts are in, both ways (yuan unless it chose cents). */
export type AllocAmountUnit = 'yuan' | 'cents'

/** The allocation as answered: the total and every receiver amount in the merchant's unit. */
export function allocOrderResult(a: Allocation, unit: AllocAmountUnit = 'yuan') {
  const {allocNo, bizAllocNo, outAllocNo, tradeNo, bizOrderNo, channel, title, description, status, errorMsg, finishTime, attach} = a
  // receiver amounts are kept in yuan, as the spec writes them
  const details = unit === 'cents' ? a.details.map((d) => ({...d, amount: yuanToCents(String(d.amount))})) : a.details
  const amount = unit === 'cents' ? a.amountCents : a.amountCents / 100
  return {allocNo, bizAllocNo, outAllocNo, tradeNo, bizOrderNo, channel, title, description, amount, status, errorMsg, finishTime, attach, details}
}

/** The wallets each receiver type exists in (spec, allocation receiverType). */
const RECEIVER_WALLETS: Record<string, string[]> = {
  MERCHANT_ID: ['walletA', 'walletD'],
  PERSONAL_OPENID: ['walletA', 'walletD'],
  PERSONAL_SUB_OPENID: ['walletA'],
  USER_ID: ['walletB'],
  LOGIN_NAME: ['walletB'],
}

/** What the order's channel would refuse about a receiver, as "field: reason"; undefined when fine. */
function receiverProblem(channel: string, r: {receiverType: string; receiverName?: string}): string | undefined {
  const wallets = RECEIVER_WALLETS[r.receiverType] ?? []
  if (!wallets.includes(channel)) {
    return `receiverType: ${r.receiverType} receivers exist only in ${wallets.join(' / ')}; this order was paid with ${channel}`
  }
  if (channel === 'walletA' && r.receiverType === 'MERCHANT_ID' && !r.receiverName) {
    return 'receiverName: is required for a walletA MERCHANT_ID receiver (the channel checks it against the merchant\'s registered name)'
  }
  return undefined
}

const receiverKey = (mchNo: string, type: string, account: string) => `${mchNo}\u0000${type}\u0000${account}`

export class AllocService {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly deps: {store: Store; pay: PayService; notifier: Notifier; now: () => Date; timeScale: number},
  ) {}

  start(): void {
    this.timer = setInterval(() => this.deps.store.background(() => this.settleDue()), 100)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }

  bind(receiver: Omit<BoundReceiver, 'boundAt'>): BoundReceiver {
    const key = receiverKey(receiver.mchNo, receiver.receiverType, receiver.receiverAccount)
    if (this.deps.store.get('receivers', key)) fail(10507, `${receiver.receiverType}:${receiver.receiverAccount} is already bound`)
    return this.deps.store.put('receivers', key, {...receiver, boundAt: formatGmt8(this.deps.now())})
  }

  receivers(mchNo: string): BoundReceiver[] {
    return this.deps.store.values<BoundReceiver>('receivers').filter((r) => r.mchNo === mchNo)
  }

  create(request: AllocRequest, appId: string): Allocation {
    const {store, pay, now, timeScale} = this.deps
    const idKey = `${request.mchNo}\u0000${appId}\u0000${request.bizAllocNo}`
    const digest = canonicalString({...request, mchNo: undefined, appId: undefined, reqId: undefined, nonceStr: undefined, reqTime: undefined, sign: undefined})
    const existing = store.get<Allocation>('allocations', store.get<string>('allocIndex', idKey) ?? '')
    if (existing) {
      if (existing.requestDigest !== digest) fail(10507, `bizAllocNo ${request.bizAllocNo} was already used with different parameters`)
      return existing
    }
    const order = pay.findForRefund(request.mchNo, request)
    if (order.status !== 'success') fail(20044, `order ${order.orderNo} is ${order.status}; only a paid order can be split`)
    if (!order.allocation) fail(20044, `order ${order.orderNo} was not created with allocation=true, so the channel refuses to split it`)
    // partial and fail are terminal but leave money unsplit: a new allocation may take it (notes §4)
    const blocking = store.values<Allocation>('allocations').find((a) => a.orderNo === order.orderNo && (a.status === 'processing' || a.status === 'success'))
    if (blocking) {
      fail(20044, `order ${order.orderNo} already has allocation ${blocking.allocNo} (${blocking.status}); a new one is allowed only after a partial or failed one`)
    }
    request.receivers.forEach((r, i) => {
      if (!store.get('receivers', receiverKey(request.mchNo, r.receiverType, r.receiverAccount))) {
        fail(20080, `receivers[${i}]: ${r.receiverType}:${r.receiverAccount} is not bound to this merchant; bind it first`)
      }
    })
    request.receivers.forEach((r, i) => {
      const problem = receiverProblem(order.channel, r)
      if (problem) fail(10506, `receivers[${i}].${problem}`)
    })
    const cents = request.receivers.reduce((sum, r) => sum + yuanToCents(String(r.amount)), 0)
    // the allocatable amount is what is still in the order: refunds and splits draw on the same money
    if (cents > order.refundableBalance) {
      fail(20060, `the receivers' total ${cents / 100} yuan is over what remains allocatable (${order.refundableBalance / 100} yuan)`)
    }
    pay.update({...order, refundableBalance: order.refundableBalance - cents})
    const seq = (store.get<number>('meta', 'allocSequence') ?? 0) + 1
    store.put('meta', 'allocSequence', seq)
    const allocation: Allocation = {
      allocNo: `DA${compactGmt8(now())}${String(seq).padStart(6, '0')}`,
      bizAllocNo: request.bizAllocNo,
      mchNo: request.mchNo,
      appId,
      orderNo: order.orderNo,
      tradeNo: order.tradeNo,
      bizOrderNo: order.bizOrderNo,
      title: request.title,
      description: request.description,
      attach: request.attach,
      // the payment's notifyUrl serves its refunds only (notes §5): a split without its own sends nothing
      notifyUrl: request.notifyUrl,
      channel: order.channel,
      amountCents: cents,
      status: 'processing',
      details: request.receivers.map((r) => ({...r, result: 'processing'})),
      settleAt: now().getTime() + SETTLE_AFTER_MS / timeScale,
      requestDigest: digest,
    }
    store.put('allocations', allocation.allocNo, allocation)
    store.put('allocIndex', idKey, allocation.allocNo)
    return allocation
  }

  find(mchNo: string, ref: {allocNo?: string; bizAllocNo?: string}): Allocation {
    const {store} = this.deps
    const found = ref.allocNo
      ? store.get<Allocation>('allocations', ref.allocNo)
      : store.values<Allocation>('allocations').filter((a) => a.bizAllocNo === ref.bizAllocNo && a.mchNo === mchNo).at(-1)
    if (!found || found.mchNo !== mchNo) return fail(10405, 'allocation not found')
    return found
  }

  settleDue(): void {
    const {store, now, notifier} = this.deps
    const nowMs = now().getTime()
    for (const allocation of store.values<Allocation>('allocations')) {
      if (allocation.status !== 'processing' || (allocation.settleAt ?? 0) > nowMs) continue
      const finishTime = formatGmt8(now())
      const details = allocation.details.map((d): AllocDetail =>
        d.receiverAccount.endsWith(FAILING_RECEIVER_SUFFIX)
          ? {...d, result: 'fail', errorMsg: 'the channel refused this receiver (sandbox test value)', finishTime}
          : {...d, result: 'success', finishTime},
      )
      const failed = details.filter((d) => d.result === 'fail').length
      const status = failed === 0 ? 'success' : failed === details.length ? 'fail' : 'partial'
      const settled: Allocation = {
        ...allocation,
        details,
        status,
        finishTime,
        settleAt: undefined,
        outAllocNo: status === 'fail' ? undefined : `CHA${allocation.allocNo.slice(2)}`,
        errorMsg: status === 'fail' ? 'every receiver was refused' : undefined,
      }
      store.put('allocations', settled.allocNo, settled)
      // what failed receivers did not get goes back to the order
      const returned = details.filter((d) => d.result === 'fail').reduce((sum, d) => sum + yuanToCents(String(d.amount)), 0)
      if (returned > 0) {
        const order = this.deps.pay.find(settled.mchNo, {orderNo: settled.orderNo})
        this.deps.pay.update({...order, refundableBalance: order.refundableBalance + returned})
      }
      if (settled.notifyUrl) {
        notifier.emit({
          event: status === 'fail' ? 'alloc.fail' : 'alloc.success',
          url: settled.notifyUrl,
          mchNo: settled.mchNo,
          appId: settled.appId || undefined,
          data: allocOrderResult(settled, this.deps.store.get<{allocAmountUnit?: AllocAmountUnit}>('merchants', settled.mchNo)?.allocAmountUnit),
        })
      }
    }
  }
}
