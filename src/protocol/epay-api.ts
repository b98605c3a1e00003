// The compatibility module's requests and answers (spec "Compatibility module", protocol-notes
// section 7), shared by the CLI's client and the sandbox: paths, the `type`/`method` value sets
// (the spec's order and the one common epay clients use), exact `money`, and the scalar fields
// of a JSON answer that a V2 `sign` covers.
import {isLosslessNumber, type JsonObject} from './json.js'
import {MAX_PAY_CENTS, MoneyFormatError} from './money.js'

export type EpayVersion = 'v1' | 'v2'

/** Every V1 path is under it (its answers succeed with code 1). */
export const EPAY_V1_PREFIX = '/epay/api/v1/'

export const EPAY_V1_PATHS = {
  submit: '/epay/api/v1/submit.php',
  create: '/epay/api/v1/mapi.php',
  query: '/epay/api/v1/api.php',
} as const

export const EPAY_V2_PREFIX = '/epay/api/v2/api/pay/'
export const EPAY_V2_PATHS = {
  submit: `${EPAY_V2_PREFIX}submit`,
  create: `${EPAY_V2_PREFIX}create`,
  query: `${EPAY_V2_PREFIX}query`,
  refund: `${EPAY_V2_PREFIX}refund`,
  refundQuery: `${EPAY_V2_PREFIX}refund_query`,
  close: `${EPAY_V2_PREFIX}close`,
} as const

/** A V2 `timestamp` (Unix seconds) further than this from the receiver's clock is refused. */
export const EPAY_TIMESTAMP_WINDOW_SECONDS = 300

/** The neutral wallets (`method` in the spec's V2 order, `type` in V1 and in common clients' V2). */
export const EPAY_WALLETS = ['walletA', 'walletB', 'walletC', 'walletD'] as const
export type EpayWallet = (typeof EPAY_WALLETS)[number]

/**
 * The protocol's own wallet words, which other people's epay clients send (protocol-notes
 * section 7): the ones the real platform's epay plugin takes, with the wallet each means.
 * `aggregate` names no wallet: the aggregate QR, where the payer picks.
 */
export const EPAY_WALLET_WORDS = {alipay: 'walletB', wxpay: 'walletA', aggregate: undefined} as const satisfies Record<string, EpayWallet | undefined>

/** Every word accepted where a wallet is named: the protocol's words, then the neutral ones. */
export const EPAY_WALLET_VALUES = [...(Object.keys(EPAY_WALLET_WORDS) as (keyof typeof EPAY_WALLET_WORDS)[]), ...EPAY_WALLETS] as const

/** How the payer pays (`type` in the spec's V2 order): web = redirect or QR, jump = straight to the channel, jsapi, app. */
export const EPAY_MODES = ['web', 'jump', 'jsapi', 'app'] as const
export type EpayMode = (typeof EPAY_MODES)[number]

/**
 * `device` values (Rainbow's set). mobile, qq, wechat and alipay (in-app browsers) mean a
 * mobile payer and jump a direct jump, both an h5 payment; pc a QR. Other values are ignored.
 */
export const EPAY_DEVICES = ['pc', 'mobile', 'qq', 'wechat', 'alipay', 'jump'] as const
const H5_DEVICES: readonly string[] = ['mobile', 'qq', 'wechat', 'alipay', 'jump']

/** Whether a `device` asks for an h5 payment (a phone, an in-app browser, a direct jump) rather than a QR. */
export const isH5Device = (device: string | undefined): boolean => H5_DEVICES.includes(device ?? '')

export const isWallet = (value: string | undefined): value is EpayWallet => (EPAY_WALLETS as readonly string[]).includes(value ?? '')
export const isMode = (value: string | undefined): value is EpayMode => (EPAY_MODES as readonly string[]).includes(value ?? '')

/** A wallet as named by the client: the word it sent (echoed back) and the wallet it means (none: the aggregate QR). */
interface WalletWord {
  word: string
  wallet?: EpayWallet
}

/** The wallet a word names, or undefined when the word is not accepted. */
export function readWallet(value: string | undefined): WalletWord | undefined {
  if (value === undefined) return undefined
  if (isWallet(value)) return {word: value, wallet: value}
  if (Object.hasOwn(EPAY_WALLET_WORDS, value)) return {word: value, wallet: EPAY_WALLET_WORDS[value as keyof typeof EPAY_WALLET_WORDS]}
  return undefined
}

const ACCEPTED = `payment types ${EPAY_MODES.join(', ')}; wallets ${EPAY_WALLET_VALUES.join(', ')}`

/** What V2 `type` and `method` read as: how the payer pays, and the wallet as the client named it. */
interface TypeAndMethod {
  mode?: EpayMode
  wallet?: WalletWord
  swapped: boolean
  /** A value neither a payment type nor an accepted wallet word (a browser path sends the payer to the cashier page instead). */
  unknown?: boolean
  problem?: {field: string; message: string}
}

/**
 * V2 `type` and `method`, in either order (the two value sets do not overlap). Returns the
 * mode, the wallet, or a problem naming the parameter and listing every accepted value.
 */
export function readTypeAndMethod(params: Record<string, string | undefined>): TypeAndMethod {
  const type = params.type || undefined
  const method = params.method || undefined
  if (type === undefined) return {swapped: false, unknown: true, problem: {field: 'type', message: `is required: one of ${ACCEPTED}`}}
  const typeWallet = readWallet(type)
  const methodWallet = readWallet(method)
  if (isMode(type) && (method === undefined || methodWallet)) return {mode: type, wallet: methodWallet, swapped: false}
  if (typeWallet && (method === undefined || isMode(method))) return {mode: method ?? 'web', wallet: typeWallet, swapped: true}
  if (!isMode(type) && !typeWallet) return {swapped: false, unknown: true, problem: {field: 'type', message: `"${type}" is not accepted: one of ${ACCEPTED}`}}
  if (!isMode(method) && !methodWallet) return {swapped: false, unknown: true, problem: {field: 'method', message: `"${method}" is not accepted: one of ${ACCEPTED}`}}
  return {
    swapped: false,
    problem: {field: 'method', message: `"${method}" does not go with type ${type}: give a wallet (${EPAY_WALLET_VALUES.join(', ')}) when type is a payment type (${EPAY_MODES.join(', ')}), or a payment type when type is a wallet`},
  }
}

/**
 * `money` in cents: a yuan string with at most 2 decimals, exactly (no floating point, no
 * sign, no spaces, no exponent), from 0.01 up to the pay limit.
 */
export function epayMoneyToCents(money: string): number {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(money)
  if (!match) throw new MoneyFormatError(`"${money}" is not an amount in yuan with at most 2 decimals (e.g. 12.50)`)
  const cents = Number(BigInt(match[1]) * 100n + BigInt((match[2] ?? '').padEnd(2, '0')))
  if (cents < 1) throw new MoneyFormatError(`"${money}" is below the minimum of 0.01`)
  if (cents > MAX_PAY_CENTS) throw new MoneyFormatError(`"${money}" is over the maximum of 99999999.99`)
  return cents
}

/**
 * The top-level scalar fields of a JSON answer as the strings that were received (numbers as
 * their literal), which is what a V2 answer's `sign` covers; nested values are left out.
 */
export function scalarFields(body: JsonObject): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue
    if (isLosslessNumber(value)) out[key] = value.value
    else if (typeof value !== 'object') out[key] = String(value)
  }
  return out
}

/** `pay_type` of the answers, from the order's payBodyType (the words common epay clients read). */
export const PAY_TYPE_OF_BODY: Record<string, string> = {
  link: 'jump',
  qr_code: 'qrcode',
  jsapi: 'jsapi',
  from: 'html',
  json: 'app',
  identifier: 'scan',
}
