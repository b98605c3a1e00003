// The `data` of each /unipay/* answer, as the spec (and protocol-notes.md, for the endpoints the
// spec names without a shape) describes it: what a command returns and prints under `data`.
// Values are plain (see toPlain): amounts are numbers, and a long id beyond 2^53 is its exact
// literal as a string. Fields the platform has no value for are left out of its answers, so
// only the numbers that name the record are always there. Statuses are strings: the enums name
// the spec's words, but a real deployment may answer with others (protocol-notes.md §4).
// Nothing checks these shapes at run time: the signature says who answered, the spec what.

/** A long the platform sends as a JSON number: a plain number, or its literal past 2^53. */
type Long = number | string

/** NormalPayResult: the answer to a payment create. */
export interface NormalPayResult {
  orderId?: Long
  bizOrderNo: string
  orderNo: string
  /** The fund trade number, given at creation: refunds and splits name the payment by it. */
  tradeNo: string
  /** PayStatusEnum. */
  status: string
  /** QR content, SDK parameters, a link or a form, by payBodyType. */
  payBody?: string
  /** PayBodyTypeEnum: link, jsapi, from, identifier, qr_code, json. */
  payBodyType?: string
}

/** NormalPayOrderResult: a payment order as the platform records it. */
export interface NormalPayOrderResult {
  orderNo: string
  bizOrderNo: string
  tradeNo?: string
  outOrderNo?: string
  title?: string
  description?: string
  channel?: string
  method?: string
  limitPay?: string | string[]
  /** Cents. */
  amount?: number
  realAmount?: number
  refundableBalance?: number
  status: string
  /** PayRefundStatusEnum. */
  refundStatus?: string
  provider?: string
  payTime?: string
  closeTime?: string
  expiredTime?: string
  terminalNo?: string
  storeNo?: string
  buyerId?: string
  attach?: string
  errorMsg?: string
}

/** The answer of every sync call: the status after the platform asked the channel. */
export interface SyncAnswer {
  orderStatus: string
  /** true when the platform corrected its own record. */
  adjust: boolean
}

/** RefundResult: the answer to a refund create. */
export interface RefundResult {
  refundNo: string
  bizRefundNo: string
  /** RefundOrderStatusEnum: progress, success, fail, close. */
  status: string
  errorMsg?: string
}

/** RefundOrderResult, the public form of a refund. */
export interface RefundOrderResult {
  refundNo: string
  bizRefundNo: string
  tradeNo?: string
  bizOrderNo?: string
  outRefundNo?: string
  amount?: number
  orderAmount?: number
  status: string
  reason?: string
  finishTime?: string
  errorMsg?: string
}

/**
 * The management form of a refund record: the public fields and more (the spec names id,
 * channel, product and createTime of its 27); times are ISO 8601 there.
 */
export interface RefundRecord extends Partial<RefundOrderResult> {
  id: Long
  mchNo?: string
  appId?: string
  channel?: string
  product?: string
  createTime?: string
  [field: string]: unknown
}

/** AllocResult: the answer to an allocation create. */
export interface AllocResult {
  allocNo: string
  bizAllocNo: string
  /** AllocOrderStatusEnum: processing, success, partial, fail. */
  status: string
  errorMsg?: string
}

/** One receiver of an allocation, amount in the merchant's unit (yuan by the spec, or cents). */
interface AllocDetail {
  receiverType: string
  receiverAccount: string
  receiverName?: string
  amount: number
  result?: string
  errorMsg?: string
  finishTime?: string
}

/** An allocation with its receivers (query/alloc-order); amount in the merchant's unit. */
export interface AllocOrderAnswer {
  allocNo: string
  bizAllocNo: string
  /** The channel's number for the split, once it answered. */
  outAllocNo?: string
  tradeNo?: string
  bizOrderNo?: string
  channel?: string
  title?: string
  description?: string
  amount?: number
  status: string
  errorMsg?: string
  finishTime?: string
  attach?: string
  details?: AllocDetail[]
}

/** TransferCreateResult. */
export interface TransferCreateResult {
  transferNo: string
  bizTransferNo: string
  /** PayFundStatusEnum, normally processing or success. */
  status: string
  /** walletA: where the payee accepts. */
  confirmUrl?: string
}

/** TransferOrderResult (no payee details). */
export interface TransferOrderResult {
  transferNo: string
  bizTransferNo: string
  outTransferNo?: string
  relationNo?: string
  amount?: number
  currency?: string
  channel?: string
  provider?: string
  status: string
  title?: string
  finishTime?: string
  errorMsg?: string
}

/** GatewayPrePayResult. */
export interface GatewayPrePayResult {
  orderNo: string
  bizOrderNo: string
  /** GatewayOrderStatusEnum, wait_pay at first. */
  status: string
  /** The effective type: an earlier order with the same bizOrderNo keeps its own. */
  gatewayType: string
  h5Url: string
  miniUrl: string
  expiredTime?: string
}

/** GatewayOrderResult. */
export interface GatewayOrderResult {
  orderNo: string
  bizOrderNo: string
  gatewayType: string
  title?: string
  description?: string
  amount?: number
  currency?: string
  status: string
  expiredTime?: string
  payTime?: string
  channel?: string
  method?: string
  product?: string
  tradeNo?: string
  outOrderNo?: string
  /** PayFundStatusEnum. */
  fundStatus?: string
  attach?: string
  returnUrl?: string
}

/** generate-auth-url. */
export interface AuthUrlAnswer {
  authUrl: string
  queryCode: string
  authToken: string
}

/** AuthResult of the code exchange (auth-and-set answers null instead). */
export interface AuthResult {
  /** ChannelAuthStatusEnum: waiting, success, not_exist. */
  status: string
  openId?: string
  userId?: string
  accessToken?: string
  returnPath?: string
}

/** ping: the server's own string to sign, to compare with ours. */
export interface PingAnswer {
  mchNo: string
  appId?: string
  appFromDefault?: boolean
  serverSignStr: string
}

// The compatibility module's `data`. A verified V2 answer keeps only the fields its signed flat
// fields vouch for (the signature does not cover `data`), so any field may be missing there.

/** create: the payment's numbers and payBody. */
export type EpayCreateData = Partial<Pick<NormalPayResult, 'orderId' | 'orderNo' | 'payBody' | 'payBodyType'>>
/** query: the order (its status a PayStatusEnum word; the flat status is 1 or 0). */
export type EpayOrderData = Partial<NormalPayOrderResult>
/** refund: the refund created. */
export type EpayRefundData = Partial<RefundResult>
/** refund_query: the refund. */
export type EpayRefundOrderData = Partial<RefundOrderResult>
/** close: the closed order. */
export type EpayCloseData = Partial<Pick<NormalPayOrderResult, 'orderNo' | 'bizOrderNo' | 'status'>>
