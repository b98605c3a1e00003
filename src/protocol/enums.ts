// Enumerations of the spec, with brand-neutral wallet names.
/** PayStatusEnum. */
export const PAY_STATUS = ['wait', 'progress', 'success', 'close', 'cancel', 'fail', 'timeout'] as const
export type PayStatus = (typeof PAY_STATUS)[number]

/** RefundOrderStatusEnum. */
export const REFUND_STATUS = ['progress', 'success', 'fail', 'close'] as const
/** PayFundStatusEnum (a transfer's status). */
export const FUND_STATUS = ['init', 'processing', 'success', 'fail', 'close', 'cancel'] as const

/**
 * The fund-status words a real deployment may send for a pay order (protocol-notes section 4):
 * `init` is `wait`, `processing` is `progress`.
 */
const FUND_WORD_EQUIVALENT: Record<string, string> = {init: 'wait', processing: 'progress'}

/** Whether two status words say the same, with the equivalences of protocol-notes section 4. */
export const sameStatus = (a: string, b: string): boolean => (FUND_WORD_EQUIVALENT[a] ?? a) === (FUND_WORD_EQUIVALENT[b] ?? b)
export type PayBodyType = 'link' | 'jsapi' | 'from' | 'identifier' | 'qr_code' | 'json'

export const PAY_METHODS = [
  'walletA_qr', 'walletA_jsapi', 'walletA_mini', 'walletA_h5', 'walletA_app', 'walletA_barcode', 'walletA_cashier',
  'walletB_qr', 'walletB_jsapi', 'walletB_pc', 'walletB_h5', 'walletB_app', 'walletB_barcode',
  'walletC_qr', 'walletC_jsapi', 'walletC_h5', 'walletC_barcode',
  'walletD_qr', 'walletD_jsapi', 'walletD_h5', 'walletD_app',
  'aggregate_pay_qrcode',
  'cardA_card_gateway', 'cardA_card_present', 'cardB_card_gateway', 'cardB_card_present',
] as const

/**
 * Words shown beside a status. Pay, refund, transfer and fund statuses share these values, so
 * the words stay neutral; a real deployment may also send the fund-status words (init, processing).
 */
export const STATUS_WORDS: Record<string, string> = {
  wait: 'no channel chosen yet',
  init: 'not started',
  progress: 'in progress',
  processing: 'in progress',
  success: 'succeeded',
  close: 'closed',
  cancel: 'cancelled',
  fail: 'failed',
  timeout: 'expired',
  no_refund: 'nothing refunded',
  refunding: 'a refund is in progress',
  partial_refund: 'partly refunded',
  refunded: 'fully refunded',
  wait_pay: 'waiting for the payer',
  paying: 'the payer picked a method',
  paid: 'paid',
  failed: 'failed',
  closed: 'closed',
  expired: 'expired',
  partial: 'some receivers failed',
}

/** Barcode prefixes (protocol-notes section 4): the first two digits pick the wallet. */
export function walletFromBarcode(authCode: string): 'walletA' | 'walletB' | 'walletC' | undefined {
  const prefix = Number(authCode.slice(0, 2))
  if (!/^\d{2}/.test(authCode)) return undefined
  if (prefix >= 10 && prefix <= 15) return 'walletA'
  if (prefix >= 25 && prefix <= 30) return 'walletB'
  if (prefix === 62) return 'walletC'
  return undefined
}

const normal = (text: string) => text.trim().toLowerCase().replace(/[\s_-]+/g, ' ')

/** "fail (failed), close (closed)": the values as --help and error messages list them. */
export function describeValues(values: readonly string[]): string {
  return values.map((value) => (STATUS_WORDS[value] && STATUS_WORDS[value] !== value ? `${value} (${STATUS_WORDS[value]})` : value)).join(', ')
}

/** The value a user meant by the value itself or by its word on screen (`failed` is `fail`). */
export function matchValue(given: string, values: readonly string[]): string | undefined {
  const wanted = normal(given)
  return values.find((value) => normal(value) === wanted) ?? values.find((value) => STATUS_WORDS[value] && normal(STATUS_WORDS[value]) === wanted)
}
