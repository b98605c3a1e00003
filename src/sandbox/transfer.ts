// Transfers from the merchant balance: idempotent on channel + bizTransferNo + mchNo (a
// duplicate is refused unless the earlier one failed, which is then reused), a balance that
// can run out, walletA transfers waiting for the payee's confirmation and closing when
// unconfirmed, test values that force failures, and transfer.* events.
import {compactGmt8, formatGmt8} from '../protocol/time.js'
import type {TransferRequest} from '../protocol/schemas.js'
import {fail, PlatformFailure} from './errors.js'
import type {Notifier} from './notifier.js'
import type {Store} from './store.js'

const DEFAULT_BALANCE_CENTS = 10_000_000_000
const SETTLE_AFTER_MS = 300
/** Test value in a title: the channel's record says paid out; a sync corrects the platform's. */
const SYNC_TEST_VALUE = 'test:sync'
const CONFIRM_WINDOW_MS = 10 * 60 * 1000
/** Test values in payeeAccount (documented in the README). */
const PAYEE_REFUSED_SUFFIX = '_refused'
export const PAYEE_FAILS_LATER_SUFFIX = '_fails_later'

type TransferStatus = 'processing' | 'success' | 'fail' | 'close'

export interface Transfer {
  transferNo: string
  bizTransferNo: string
  mchNo: string
  appId: string
  channel: string
  channelMchNo: string
  amount: number
  currency: string
  title?: string
  reason?: string
  payeeType: string
  payeeAccount: string
  payeeName?: string
  attach?: string
  notifyUrl?: string
  status: TransferStatus
  provider: string
  outTransferNo?: string
  relationNo: string
  finishTime?: string
  errorMsg?: string
  confirmUrl?: string
  /** Epoch ms: settle (walletB/D) or close when unconfirmed (walletA). */
  dueAt?: number
  /** Accepted submissions of this key: 1, or more after failures reused. */
  submissions: number
}

/**
 * Fields of a transfer the channel is not given, accepted and ignored (protocol-notes section 4):
 * the platform does not forward walletA a transferScene (the scene bound in the channel merchant
 * configuration applies), which is no reason to refuse the transfer. Removed; says what was.
 */
export function ignoredTransferFields(body: Record<string, unknown>): string[] {
  if (body.channel !== 'walletA' || body.transferScene === undefined) return []
  delete body.transferScene
  return ['transferScene ignored: the platform does not forward it to walletA (the scene bound in the channel merchant configuration applies)']
}

export function transferCreateResult(t: Transfer) {
  return {transferNo: t.transferNo, bizTransferNo: t.bizTransferNo, status: t.status, confirmUrl: t.confirmUrl}
}

export function transferOrderResult(t: Transfer) {
  const {transferNo, bizTransferNo, outTransferNo, relationNo, amount, currency, channel, provider, status, title, finishTime, errorMsg} = t
  return {transferNo, bizTransferNo, outTransferNo, relationNo, amount, currency, channel, provider, status, title, finishTime, errorMsg}
}

const key = (mchNo: string, channel: string, bizTransferNo: string) => `${mchNo}\u0000${channel}\u0000${bizTransferNo}`

export class TransferService {
  private readonly byKey = new Map<string, string>()
  private readonly open = new Set<string>()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly deps: {store: Store; notifier: Notifier; now: () => Date; timeScale: number; publicUrl: () => string},
  ) {
    for (const t of deps.store.values<Transfer>('transfers')) {
      this.byKey.set(key(t.mchNo, t.channel, t.bizTransferNo), t.transferNo)
      if (t.status === 'processing') this.open.add(t.transferNo)
    }
  }

  start(): void {
    this.timer = setInterval(() => this.deps.store.background(() => this.settleDue()), 100)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }

  balance(mchNo: string): number {
    return this.deps.store.get<number>('balances', mchNo) ?? DEFAULT_BALANCE_CENTS
  }

  setBalance(mchNo: string, cents: number): number {
    return this.deps.store.put('balances', mchNo, cents)
  }

  /** Creates (or reuses a failed) transfer; a channel refusal keeps the failed record and throws. */
  create(request: TransferRequest, appId: string): Transfer {
    const {store, now, timeScale, publicUrl} = this.deps
    const existingNo = this.byKey.get(key(request.mchNo, request.channel, request.bizTransferNo))
    const existing = existingNo ? store.get<Transfer>('transfers', existingNo) : undefined
    if (existing && existing.status !== 'fail') {
      fail(10507, `duplicate transfer: ${request.channel} ${request.bizTransferNo} is already ${existing.transferNo} (${existing.status}); only a failed one is reused`)
    }
    const created = now()
    let transferNo = existing?.transferNo
    if (!transferNo) {
      const seq = (store.get<number>('meta', 'transferSequence') ?? 0) + 1
      store.put('meta', 'transferSequence', seq)
      transferNo = `TR${compactGmt8(created)}${String(seq).padStart(7, '0')}`
    }
    const base: Transfer = {
      transferNo,
      bizTransferNo: request.bizTransferNo,
      mchNo: request.mchNo,
      appId,
      channel: request.channel,
      channelMchNo: request.channelMchNo,
      amount: request.amount,
      currency: 'cny',
      title: request.title,
      reason: request.reason,
      payeeType: request.payeeType,
      payeeAccount: request.payeeAccount,
      payeeName: request.payeeName,
      attach: request.attach,
      notifyUrl: request.notifyUrl,
      status: 'processing',
      provider: request.channel.toUpperCase(),
      relationNo: `${request.bizTransferNo}`,
      submissions: (existing?.submissions ?? 0) + 1,
    }
    this.byKey.set(key(request.mchNo, request.channel, request.bizTransferNo), transferNo)
    const refusal = request.payeeAccount.endsWith(PAYEE_REFUSED_SUFFIX)
      ? 'the channel refused the payee: account and name do not match (sandbox test value)'
      : this.balance(request.mchNo) < request.amount
        ? `insufficient balance: the merchant has ${this.balance(request.mchNo)} cents, the transfer needs ${request.amount}`
        : undefined
    if (refusal) {
      const failed = {...base, status: 'fail' as const, errorMsg: refusal, finishTime: formatGmt8(created)}
      store.put('transfers', transferNo, failed)
      this.emit(failed)
      throw new PlatformFailure(20045, `transfer ${transferNo} failed: ${refusal}`)
    }
    this.setBalance(request.mchNo, this.balance(request.mchNo) - request.amount)
    const transfer: Transfer =
      request.channel === 'walletA'
        ? {...base, confirmUrl: `${publicUrl()}/transfer/confirm/${transferNo}`, dueAt: created.getTime() + CONFIRM_WINDOW_MS / timeScale}
        : {...base, dueAt: created.getTime() + SETTLE_AFTER_MS / timeScale}
    store.put('transfers', transferNo, transfer)
    this.open.add(transferNo)
    return transfer
  }

  find(mchNo: string, ref: {transferNo?: string; bizTransferNo?: string; channel?: string}): Transfer {
    const {store} = this.deps
    const transferNo = ref.transferNo ?? this.byKey.get(key(mchNo, ref.channel ?? '', ref.bizTransferNo ?? ''))
    const transfer = transferNo ? store.get<Transfer>('transfers', transferNo) : undefined
    if (!transfer || transfer.mchNo !== mchNo) return fail(20041, 'transfer not found')
    return transfer
  }

  /** Any merchant's transfer by transferNo or bizTransferNo: the payee's side, for `sandbox transfer confirm`. */
  findAnyMerchant(ref: string): Transfer {
    const direct = this.byNumber(ref)
    if (direct) return direct
    const same = this.all().filter((t) => t.bizTransferNo === ref)
    if (same.length > 1) fail(10506, `bizTransferNo ${ref} names ${same.length} transfers (${same.map((t) => `${t.channel} ${t.transferNo}`).join(', ')}); give the transferNo`)
    return same[0] ?? fail(20041, `no transfer ${ref}`)
  }

  byNumber(transferNo: string): Transfer | undefined {
    return this.deps.store.get<Transfer>('transfers', transferNo)
  }

  all(): Transfer[] {
    return this.deps.store.values<Transfer>('transfers')
  }

  /**
   * Asks the channel (transfer sync): a processing transfer titled with the test value was
   * already paid out on the channel side (the payee confirmed in the wallet), so it is corrected.
   */
  sync(transfer: Transfer): {orderStatus: TransferStatus; adjust: boolean} {
    if (transfer.status !== 'processing' || !transfer.title?.includes(SYNC_TEST_VALUE)) return {orderStatus: transfer.status, adjust: false}
    return {orderStatus: this.finish(transfer, 'success').status, adjust: true}
  }

  /** The payee accepts on the confirm page. */
  confirm(transferNo: string): Transfer {
    const transfer = this.byNumber(transferNo) ?? fail(20041, `no transfer ${transferNo}`)
    if (transfer.channel !== 'walletA') fail(20044, `transfer ${transferNo} needs no confirmation`)
    if (transfer.status !== 'processing') fail(20044, `transfer ${transferNo} is already ${transfer.status}`)
    return this.finish(transfer, 'success')
  }

  /** The payee declines (played by `sandbox transfer reject`): the amount goes back to the balance. */
  reject(transferNo: string): Transfer {
    const transfer = this.byNumber(transferNo) ?? fail(20041, `no transfer ${transferNo}`)
    if (transfer.channel !== 'walletA') fail(20044, `transfer ${transferNo} needs no confirmation`)
    if (transfer.status !== 'processing') fail(20044, `transfer ${transferNo} is already ${transfer.status}`)
    return this.finish(transfer, 'fail', 'the payee declined the transfer; the amount went back to the balance')
  }

  private finish(transfer: Transfer, status: Exclude<TransferStatus, 'processing'>, errorMsg?: string): Transfer {
    const {store, now} = this.deps
    const done: Transfer = {
      ...transfer,
      status,
      errorMsg,
      dueAt: undefined,
      finishTime: formatGmt8(now()),
      outTransferNo: status === 'success' ? `CHT${transfer.transferNo.slice(2)}` : transfer.outTransferNo,
    }
    store.put('transfers', done.transferNo, done)
    if (status !== 'success') this.setBalance(done.mchNo, this.balance(done.mchNo) + done.amount)
    this.open.delete(done.transferNo)
    this.emit(done)
    return done
  }

  private emit(transfer: Transfer): void {
    if (!transfer.notifyUrl) return
    this.deps.notifier.emit({
      event: `transfer.${transfer.status}`,
      url: transfer.notifyUrl,
      mchNo: transfer.mchNo,
      appId: transfer.appId || undefined,
      data: {...transferOrderResult(transfer), attach: transfer.attach},
    })
  }

  settleDue(): void {
    const nowMs = this.deps.now().getTime()
    for (const transferNo of this.open) {
      const transfer = this.byNumber(transferNo)
      if (!transfer || transfer.status !== 'processing' || (transfer.dueAt ?? Infinity) > nowMs) continue
      if (transfer.channel === 'walletA') this.finish(transfer, 'close', 'the payee did not confirm in time; the amount went back to the balance')
      else if (transfer.payeeAccount.endsWith(PAYEE_FAILS_LATER_SUFFIX)) this.finish(transfer, 'fail', 'the channel failed the transfer (sandbox test value)')
      else this.finish(transfer, 'success')
    }
  }
}
