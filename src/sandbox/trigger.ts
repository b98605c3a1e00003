// `sandbox trigger EVENT`: creates the objects an event needs (for the sandbox's default
// merchant) and drives them to it through the same services the API and the payer use, so the
// callback that follows is the one a real flow sends; at once, whatever the sandbox clock says.
import {randomBytes} from 'node:crypto'
import {SANDBOX_CHANNEL_MCH_NOS, type TriggerEvent} from '../protocol/local-sandbox.js'
import type {AllocRequest, PayRequest, RefundRequest, TransferRequest} from '../protocol/schemas.js'
import {FAILING_RECEIVER_SUFFIX, type AllocService, type Allocation} from './alloc.js'
import type {PayService} from './pay.js'
import type {RefundService} from './refund.js'
import type {Store} from './store.js'
import {PAYEE_FAILS_LATER_SUFFIX, type Transfer, type TransferService} from './transfer.js'

interface TriggerDeps {
  store: Store
  pay: PayService
  refunds: RefundService
  allocs: AllocService
  transfers: TransferService
}

interface TriggerInput {
  event: TriggerEvent
  notifyUrl: string
  mchNo: string
  appId: string
}

const tag = () => `TRG${Date.now().toString(36)}${randomBytes(3).toString('hex')}`

export function trigger({store, pay, refunds, allocs, transfers}: TriggerDeps, {event, notifyUrl, mchNo, appId}: TriggerInput): Record<string, string> {
  const [kind, outcome] = event.split('.') as [string, string]
  const paidOrder = (allocation = false, wallet?: string) => {
    const order = pay.create({mchNo, appId, bizOrderNo: tag(), title: `trigger ${event}`, amount: 100, notifyUrl, allocation} as PayRequest & Record<string, unknown>)
    return pay.payerPays(order.orderNo, 'success', wallet)
  }
  if (kind === 'pay') {
    const order = pay.create({mchNo, appId, bizOrderNo: tag(), title: `trigger ${event}`, amount: 100, notifyUrl} as PayRequest & Record<string, unknown>)
    if (outcome === 'close') pay.close(mchNo, {orderNo: order.orderNo}, false)
    else pay.payerPays(order.orderNo, outcome as 'success' | 'fail')
    return {orderNo: order.orderNo, bizOrderNo: order.bizOrderNo}
  }
  if (kind === 'refund') {
    const order = paidOrder()
    // refund callbacks go to the payment order's notifyUrl (after its pay.success)
    const refund = refunds.create({mchNo, appId, bizOrderNo: order.bizOrderNo, bizRefundNo: tag(), amount: 100} as RefundRequest)
    refunds.settle(refund, outcome as 'success' | 'fail' | 'close')
    return {orderNo: order.orderNo, refundNo: refund.refundNo, bizRefundNo: refund.bizRefundNo}
  }
  if (kind === 'alloc') {
    // paid with walletB: the channel takes USER_ID receivers only for walletB orders
    const order = paidOrder(true, 'walletB')
    // the channel refuses receivers whose account ends in the failing suffix
    const accounts = outcome === 'success' ? [tag()] : outcome === 'partial' ? [tag(), `${tag()}${FAILING_RECEIVER_SUFFIX}`] : [`${tag()}${FAILING_RECEIVER_SUFFIX}`]
    for (const account of accounts) allocs.bind({mchNo, receiverType: 'USER_ID', receiverAccount: account})
    const receivers = accounts.map((receiverAccount) => ({receiverType: 'USER_ID', receiverAccount, amount: 0.1}))
    const alloc = allocs.create({mchNo, bizOrderNo: order.bizOrderNo, bizAllocNo: tag(), receivers, notifyUrl} as unknown as AllocRequest, appId)
    // the channel answers now, whatever the sandbox clock says (it may stand still)
    store.put<Allocation>('allocations', alloc.allocNo, {...alloc, settleAt: 0})
    allocs.settleDue()
    return {orderNo: order.orderNo, allocNo: alloc.allocNo, bizAllocNo: alloc.bizAllocNo}
  }
  // transfers: walletA waits for the payee (closed here by ending its window), walletB settles
  const amount = 100
  if (transfers.balance(mchNo) < amount) transfers.setBalance(mchNo, transfers.balance(mchNo) + amount)
  const walletA = outcome === 'close'
  const request = {
    mchNo, bizTransferNo: tag(), channel: walletA ? 'walletA' : 'walletB', channelMchNo: SANDBOX_CHANNEL_MCH_NOS[0], amount, title: `trigger ${event}`,
    payeeType: walletA ? 'openid' : 'user_id', payeeAccount: outcome === 'fail' ? `${tag()}${PAYEE_FAILS_LATER_SUFFIX}` : tag(), notifyUrl,
  } as TransferRequest
  const transfer = transfers.create(request, appId)
  // due now, whatever the sandbox clock says (it may stand still): walletA's window ends, walletB's channel answers
  store.put<Transfer>('transfers', transfer.transferNo, {...transfer, dueAt: 0})
  transfers.settleDue()
  return {transferNo: transfer.transferNo, bizTransferNo: transfer.bizTransferNo}
}
