// What the compatibility module's parts share: its dependencies, the record it keeps beside each
// pay order, the merchant and order a request names, `money` in cents, messages in the epay
// client's words, and the JSON answer (V1 unsigned with code 1/-1, V2 signed with code 0).
import type {KeyObject} from 'node:crypto'
import {EPAY_WALLET_WORDS, EPAY_WALLETS, epayMoneyToCents, type EpayMode, type EpayVersion} from '../../protocol/epay-api.js'
import {signRsa, type EpayParams, type Md5KeyForm} from '../../protocol/epay.js'
import {loadPublicKey} from '../../protocol/keys.js'
import {centsToYuan, MoneyFormatError} from '../../protocol/money.js'
import type {FieldProblem} from '../../protocol/schemas.js'
import {fail} from '../errors.js'
import type {Notifier} from '../notifier.js'
import type {PayOrder, PayService} from '../pay.js'
import type {RefundService} from '../refund.js'
import type {ReplayGuard} from '../replay.js'
import type {Store} from '../store.js'

/** A merchant's MD5 key (V1) and where it goes in the string (protocol-notes: direct by default). */
export interface EpaySecret {
  md5Key: string
  md5KeyForm?: Md5KeyForm
}

export interface EpayDeps {
  store: Store
  pay: PayService
  refunds: RefundService
  notifier: Notifier
  platformKey: KeyObject
  /** The sandbox clock: business time (expiry, settlement, addtime), which `sandbox clock advance` moves. */
  now: () => Date
  /** The real time: clients check every V2 timestamp against it, so answers, links and notifications carry it. */
  clientNow?: () => Date
  publicUrl: () => string
  /** MD5 keys by merchant number; a merchant without one cannot use V1. */
  md5Keys: (mchNo: string) => EpaySecret | undefined
  /** The V2 timestamp window (on by default, switched off with the replay checks). */
  timestampChecks?: boolean
  /** Refuses a V2 request whose signature was already received (absent: replay checks off). */
  replay?: ReplayGuard
}

export interface EpayAnswer {
  status: number
  headers: Record<string, string>
  body: string
  /** A page's refusal: its code and message for the request log (a JSON answer is read back from its body). */
  outcome?: {code: string; message: string}
}

/** What the module keeps about an order it made, beside the pay order. */
export interface EpayOrder {
  orderNo: string
  mchNo: string
  version: EpayVersion
  outTradeNo: string
  /** The wallet word the client sent (`alipay`, `walletB`, `aggregate`), echoed back as sent. */
  wallet?: string
  mode?: EpayMode
  notifyUrl?: string
  returnUrl?: string
  param?: string
  /** The business parameters, to tell a repeat from a reuse with other parameters. */
  digest: string
}

export interface StoredMerchant {
  mchNo: string
  defaultAppId: string
  publicKeyPem: string
}

export type Params = Record<string, string>

/** What an answer says beside code and msg: the spec's `data` and the flat fields epay clients read. */
export interface Result {
  data: unknown
  flat: Record<string, unknown>
}

export const EPAY_ORDERS = 'epayOrders'
export const PAGE_PREFIX = '/epay/pay/'
const JSON_TYPE = 'application/json; charset=utf-8'

/** The protocol's word for a neutral wallet (walletB → alipay), for clients that speak those words. */
export const WORD_OF_WALLET: Record<string, string> = Object.fromEntries(
  Object.entries(EPAY_WALLET_WORDS).flatMap(([word, wallet]) => (wallet ? [[wallet, word]] : [])),
)

/**
 * The wallets a payer may pick for an order made here (its cashier, its aggregate QR): those the
 * protocol has a word for, since an epay client never receives a neutral word (protocol-notes §7).
 */
export const PAYER_WALLETS = EPAY_WALLETS.filter((wallet) => WORD_OF_WALLET[wallet])

export interface EpayContext extends EpayDeps {
  /** The real time in Unix seconds: every V2 `timestamp` the module writes. */
  realSeconds(): number
  pageUrl(orderNo: string): string
  record(orderNo: string): EpayOrder | undefined
  merchantOf(params: Params): StoredMerchant
  publicKeyOf(merchant: StoredMerchant): KeyObject
}

export function epayContext(deps: EpayDeps): EpayContext {
  const publicKeys = new Map<string, KeyObject>()
  return {
    ...deps,
    realSeconds: () => Math.floor((deps.clientNow ?? deps.now)().getTime() / 1000),
    pageUrl: (orderNo) => `${deps.publicUrl()}${PAGE_PREFIX}${encodeURIComponent(orderNo)}`,
    record: (orderNo) => deps.store.get<EpayOrder>(EPAY_ORDERS, orderNo),
    merchantOf(params) {
      const pid = params.pid
      if (!pid) fail(10506, 'pid: is required (the merchant number)')
      return deps.store.get<StoredMerchant>('merchants', pid) ?? fail(20023, `merchant ${pid} is unknown or disabled`)
    },
    publicKeyOf(merchant) {
      let key = publicKeys.get(merchant.publicKeyPem)
      if (!key) publicKeys.set(merchant.publicKeyPem, (key = loadPublicKey(merchant.publicKeyPem)))
      return key
    },
  }
}

/**
 * The `type` an answer or notification carries: the client's own word, else the wallet paid with
 * in the protocol's word (an order made by /unipay/* with walletC or walletD has none).
 */
export function echoedType(record: EpayOrder | undefined, order: PayOrder): string {
  return record?.wallet ?? WORD_OF_WALLET[order.channel] ?? order.channel
}

export function moneyOf(params: Params, field = 'money'): number {
  const value = params[field]
  if (value === undefined || value === '') return fail(10506, `${field}: is required (yuan, e.g. 1.00)`)
  try {
    return epayMoneyToCents(value)
  } catch (error) {
    if (error instanceof MoneyFormatError) return fail(10506, `${field}: ${error.message}`)
    throw error
  }
}

/** The order a request names: trade_no (the platform order number) wins over out_trade_no. */
export function orderOf(ctx: EpayContext, mchNo: string, params: Params): PayOrder {
  if (params.trade_no) return ctx.pay.find(mchNo, {orderNo: params.trade_no})
  if (params.out_trade_no) return ctx.pay.find(mchNo, {bizOrderNo: params.out_trade_no})
  return fail(10506, 'out_trade_no: one of out_trade_no / trade_no is required')
}

/** Names of the pay and refund fields as the module's parameters, for messages. */
const PARAM_NAMES: Record<string, string> = {
  mchNo: 'pid',
  bizOrderNo: 'out_trade_no',
  title: 'name',
  amount: 'money',
  notifyUrl: 'notify_url',
  returnUrl: 'return_url',
  attach: 'param',
  openId: 'sub_openid',
  method: 'type/method',
  bizRefundNo: 'out_refund_no',
}

/** Field problems in the epay client's words: its parameter names, limits on money in yuan. */
export const describeProblems = (problems: FieldProblem[]) =>
  problems
    .map((p) => {
      const message = p.field === 'amount' ? `${p.message.replace(/\d+$/, (cents) => centsToYuan(Number(cents)))} (yuan)` : p.message
      return `${PARAM_NAMES[p.field] ?? p.field}: ${message}`
    })
    .join('; ')

export const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}): EpayAnswer => ({
  status,
  headers: {'content-type': JSON_TYPE, ...headers},
  body: JSON.stringify(body),
})

/**
 * code/msg/data plus the flat fields. V1: success 1, failure -1 (what V1 clients test), never
 * signed. V2: success 0, failures their platform code; `timestamp` (the real time), `sign_type`
 * and a platform `sign` over the flat scalars.
 */
export function answer(ctx: EpayContext, version: EpayVersion, failure: {code: number; message: string} | undefined, result?: Result): EpayAnswer {
  const code = version === 'v1' ? (failure ? -1 : 1) : (failure?.code ?? 0)
  const body: Record<string, unknown> = {code, msg: failure?.message ?? 'success', ...(result?.flat ?? {}), data: result?.data ?? null}
  if (version === 'v2') {
    body.timestamp = String(ctx.realSeconds())
    body.sign_type = 'RSA'
    body.sign = signRsa(JSON.parse(JSON.stringify(body)) as EpayParams, ctx.platformKey)
  }
  return jsonAnswer(200, body)
}
