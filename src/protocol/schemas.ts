// Field rules of the spec (lengths, limits, one-of rules), each written once: the client checks
// a body with them before sending, the sandbox answers 10506 naming the field, a batch checks
// every row. Written as zod schemas are, with field-rules.ts's builders (no zod is loaded).
import {httpUrlProblem} from './addresses.js'
import {walletFromBarcode, PAY_METHODS} from './enums.js'
import {rules, type Infer, type IssueSink, type Received} from './field-rules.js'
import {MAX_PAY_CENTS, MAX_TRANSFER_CENTS} from './money.js'
import {parseGmt8} from './time.js'

const requiredOr = (what: string) => (issue: {input?: unknown}) =>
  issue.input === undefined || issue.input === null ? 'is required' : `must be ${what}`

const text = (max: number) =>
  rules.string({error: requiredOr('a string')}).max(max, `must be at most ${max} characters`)
const integer = (min: number, max: number) =>
  rules
    .number({error: requiredOr('a number')})
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
const gmt8Time = rules
  .string({error: requiredOr('a time')})
  .refine((value) => parseGmt8(value) !== undefined, 'must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)')
/** The platform's rule for a URL it calls or sends a browser to (addresses.ts), its reason as the message. */
const httpUrl = (max: number) =>
  text(max).refine((value) => httpUrlProblem(value) === undefined, (issue) => httpUrlProblem(issue.input as string) ?? '')
const jsonText = (max: number) =>
  text(max).refine((value) => {
    try {
      JSON.parse(value)
      return true
    } catch {
      return false
    }
  }, 'must be JSON text')

/** Common parameters of every /unipay/* request, `sign` apart. */
export const commonFields = {
  mchNo: text(32).min(1, 'is required'),
  appId: text(32).optional(),
  channelMchNo: text(32).optional(),
  reqId: text(64).min(1, 'is required'),
  nonceStr: text(32).optional(),
  reqTime: gmt8Time,
  clientIp: text(64).optional(),
}

const goodsDetailItem = rules.object({
  goodsId: text(32),
  goodsName: text(256),
  quantity: integer(1, 99_999_999),
  unitPrice: integer(0, MAX_PAY_CENTS),
  category: text(32).optional(),
  description: text(1000).optional(),
  showUrl: text(400).optional(),
})

const terminalInfo = rules.object({
  terminalNo: text(32).optional(),
  storeNo: text(64).optional(),
  operatorId: text(32).optional(),
  deviceName: text(64).optional(),
  deviceIp: text(64).optional(),
  longitude: rules.number().optional(),
  latitude: rules.number().optional(),
})

/** At least one of the named fields must be present; the first one present wins. */
function oneOf(fields: string[]) {
  return (value: Record<string, unknown>, ctx: IssueSink) => {
    if (fields.some((field) => value[field] !== undefined && value[field] !== null && value[field] !== '')) return
    ctx.addIssue({path: [fields[0]], message: `one of ${fields.join(' / ')} is required`})
  }
}

export const payFields = rules
  .object({
    ...commonFields,
    bizOrderNo: text(100).min(1, 'is required'),
    title: text(100).min(1, 'is required'),
    description: text(50).optional(),
    amount: integer(1, MAX_PAY_CENTS),
    currency: text(8).regex(/^[a-z]{3}$/, 'must be a 3-letter lower-case ISO 4217 code').optional(),
    product: text(32).optional(),
    method: rules.enum(PAY_METHODS, {error: 'must be a PayMethodEnum value'}).optional(),
    capability: text(32).optional(),
    openId: text(128).optional(),
    channelAppId: text(128).optional(),
    authCode: text(128).optional(),
    limitPay: rules.array(text(32)).max(10, 'must have at most 10 values').optional(),
    extraParam: jsonText(2048).optional(),
    goodsDetail: rules.array(goodsDetailItem).max(50, 'must have at most 50 items').optional(),
    notifyUrl: httpUrl(200).optional(),
    returnUrl: httpUrl(200).optional(),
    attach: text(500).optional(),
    expiredTime: gmt8Time.optional(),
    terminal: terminalInfo.optional(),
    allocation: rules.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    const method = value.method
    if (method?.endsWith('_barcode') && !value.authCode) {
      ctx.addIssue({path: ['authCode'], message: `is required for ${method}`})
    }
    if (value.authCode && (!method || method.endsWith('_barcode'))) {
      const wallet = walletFromBarcode(value.authCode)
      if (!wallet) {
        ctx.addIssue({
          path: ['authCode'],
          message: 'must start with a known barcode prefix (10-15 walletA, 25-30 walletB, 62 walletC)',
        })
      } else if (method && !method.startsWith(wallet)) {
        ctx.addIssue({path: ['method'], message: `contradicts the barcode, which is a ${wallet} code`})
      }
    }
  })

export const closeFields = rules
  .object({...commonFields, orderNo: text(100).optional(), bizOrderNo: text(100).optional(), useCancel: rules.boolean()})
  .superRefine(oneOf(['orderNo', 'bizOrderNo']))

export const syncPayFields = rules
  .object({
    ...commonFields,
    orderNo: text(100).optional(),
    bizOrderNo: text(100).optional(),
    outOrderNo: text(100).optional(),
  })
  .superRefine(oneOf(['orderNo', 'bizOrderNo', 'outOrderNo']))

export const queryPayFields = rules
  .object({...commonFields, orderNo: text(100).optional(), bizOrderNo: text(100).optional()})
  .superRefine(oneOf(['orderNo', 'bizOrderNo']))

export const pingFields = rules.object({...commonFields})

export const refundFields = rules
  .object({
    ...commonFields,
    tradeNo: text(100).optional(),
    bizOrderNo: text(100).optional(),
    amount: integer(1, MAX_PAY_CENTS),
    reason: text(50).optional(),
    bizRefundNo: text(100).optional(),
  })
  .superRefine(oneOf(['tradeNo', 'bizOrderNo']))

export const queryRefundFields = rules
  .object({...commonFields, refundNo: text(100).optional(), bizRefundNo: text(100).optional()})
  .superRefine(oneOf(['refundNo', 'bizRefundNo']))

export const syncRefundFields = queryRefundFields

/**
 * Methods that need the payer's openId. Not a field rule: after auth-and-set the platform fills
 * the stored one ("later payments reuse the stored openId"), so only the platform can tell.
 */
export const OPENID_METHODS: readonly string[] = ['walletA_jsapi', 'walletA_mini']

export const ALLOC_RECEIVER_TYPES = ['MERCHANT_ID', 'PERSONAL_OPENID', 'PERSONAL_SUB_OPENID', 'USER_ID', 'LOGIN_NAME'] as const
const MAX_ALLOC_YUAN = 99_999_999.99

/** Receiver amounts are yuan numbers with at most two decimals (0.01 to 99999999.99). */
const yuanAmount = rules
  .number({error: requiredOr('a number of yuan')})
  .min(0.01, 'must be at least 0.01 (yuan)')
  .max(MAX_ALLOC_YUAN, `must be at most ${MAX_ALLOC_YUAN} (yuan)`)
  .refine((value) => /^\d+(\.\d{1,2})?$/.test(String(value)), 'must have at most 2 decimals (yuan)')

const allocReceiver = rules.object({
  receiverType: rules.enum(ALLOC_RECEIVER_TYPES, {error: `must be one of ${ALLOC_RECEIVER_TYPES.join(', ')}`}),
  receiverAccount: text(128).min(1, 'is required'),
  receiverName: text(64).optional(),
  amount: yuanAmount,
})

export const allocFields = rules
  .object({
    ...commonFields,
    bizAllocNo: text(100).min(1, 'is required'),
    tradeNo: text(100).optional(),
    bizOrderNo: text(100).optional(),
    title: text(100).optional(),
    description: text(500).optional(),
    receivers: rules.array(allocReceiver, {error: requiredOr('a list')}).min(1, 'needs at least one receiver'),
    attach: text(500).optional(),
    notifyUrl: httpUrl(200).optional(),
  })
  .superRefine(oneOf(['tradeNo', 'bizOrderNo']))

/** Receiver amounts in whole cents: what the official SDKs send, and some deployments take. */
export const allocFieldsInCents = allocFields.extend({
  receivers: rules
    .array(allocReceiver.extend({amount: integer(1, Math.round(MAX_ALLOC_YUAN * 100))}), {error: requiredOr('a list')})
    .min(1, 'needs at least one receiver'),
})

export const queryAllocFields = rules
  .object({...commonFields, allocNo: text(100).optional(), bizAllocNo: text(100).optional()})
  .superRefine(oneOf(['allocNo', 'bizAllocNo']))

export const TRANSFER_CHANNELS = ['walletA', 'walletB', 'walletD'] as const
export const TRANSFER_PAYEE_TYPES = ['openid', 'user_id', 'open_id', 'login_name', 'phone'] as const
/** Which payee types each transfer channel takes (spec table). */
const PAYEE_TYPES_BY_CHANNEL: Record<(typeof TRANSFER_CHANNELS)[number], readonly string[]> = {
  walletA: ['openid'],
  walletB: ['user_id', 'open_id', 'login_name'],
  walletD: ['openid', 'phone'],
}

/** The business part of a transfer, checked per row in batches as well as per call. */
const transferBusinessShape = {
  channel: rules.enum(TRANSFER_CHANNELS, {error: `must be one of ${TRANSFER_CHANNELS.join(', ')}`}),
  channelMchNo: text(32).min(1, 'is required'),
  bizTransferNo: text(100).min(1, 'is required'),
  amount: integer(1, MAX_TRANSFER_CENTS),
  title: text(100).optional(),
  reason: text(200).optional(),
  payeeType: rules.enum(TRANSFER_PAYEE_TYPES, {error: `must be one of ${TRANSFER_PAYEE_TYPES.join(', ')}`}),
  payeeAccount: text(100).min(1, 'is required'),
  payeeName: text(100).optional(),
  attach: text(500).optional(),
  notifyUrl: httpUrl(200).optional(),
  reportInfos: rules.array(rules.object({infoType: text(64).min(1, 'is required'), infoContent: text(1024)})).optional(),
  transferScene: text(32).optional(),
}

/** Per-channel rules of the spec: payee types, walletA payee names by amount, scenes. */
function checkTransferRules(value: Received<typeof transferBusinessShape>, ctx: IssueSink): void {
  const channel = value.channel as (typeof TRANSFER_CHANNELS)[number] | undefined
  if (!channel || !PAYEE_TYPES_BY_CHANNEL[channel]) return
  if (value.payeeType && !PAYEE_TYPES_BY_CHANNEL[channel].includes(value.payeeType)) {
    ctx.addIssue({path: ['payeeType'], message: `${value.payeeType} is not taken by ${channel} (use ${PAYEE_TYPES_BY_CHANNEL[channel].join(' or ')})`})
  }
  if (channel === 'walletA' && typeof value.amount === 'number') {
    if (value.amount < 30 && value.payeeName) {
      ctx.addIssue({path: ['payeeName'], message: 'must be empty for walletA transfers below 0.30 yuan'})
    }
    if (value.amount >= 200_000 && !value.payeeName) {
      ctx.addIssue({path: ['payeeName'], message: 'is required (the payee\'s real name) for walletA transfers of 2000 yuan or more'})
    }
  }
  if (channel === 'walletA' && value.transferScene) {
    ctx.addIssue({path: ['transferScene'], message: 'is not sent for walletA (the scene bound in the channel merchant configuration applies)'})
  }
}

export const transferRowFields = rules.object(transferBusinessShape).superRefine(checkTransferRules)

export const transferFields = rules.object({...commonFields, ...transferBusinessShape}).superRefine(checkTransferRules)

export const queryTransferFields = rules
  .object({
    ...commonFields,
    transferNo: text(100).optional(),
    bizTransferNo: text(100).optional(),
    channel: text(32).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.transferNo) return
    if (!value.bizTransferNo) ctx.addIssue({path: ['transferNo'], message: 'give transferNo, or bizTransferNo with channel'})
    else if (!value.channel) ctx.addIssue({path: ['channel'], message: 'is required with bizTransferNo'})
  })

export const GATEWAY_TYPES = ['cashier', 'aggregate'] as const
export const AUTH_TYPES = ['walletA', 'walletB', 'walletC_pay', 'walletD'] as const
/** Fields the spec gives no maximum length for. */
const unbounded = () => rules.string({error: requiredOr('a string')})

export const gatewayPrePayFields = rules.object({
  ...commonFields,
  bizOrderNo: text(100).min(1, 'is required'),
  title: text(100).min(1, 'is required'),
  description: text(50).optional(),
  amount: integer(1, MAX_PAY_CENTS),
  currency: text(8).regex(/^[a-z]{3}$/, 'must be a 3-letter lower-case ISO 4217 code').optional(),
  gatewayPayType: rules.enum(GATEWAY_TYPES, {error: requiredOr('cashier or aggregate')}),
  notifyUrl: httpUrl(256).optional(),
  returnUrl: httpUrl(256).optional(),
  attach: text(512).optional(),
  extraParam: jsonText(2048).optional(),
  expiredTime: gmt8Time.optional(),
  storeNo: text(64).optional(),
  goodsDetail: rules.array(goodsDetailItem).max(50, 'must have at most 50 items').optional(),
  allocation: rules.boolean().optional(),
})

export const queryGatewayFields = rules
  .object({...commonFields, orderNo: text(64).optional(), bizOrderNo: text(100).optional()})
  .superRefine(oneOf(['orderNo', 'bizOrderNo']))

const authType = rules.enum(AUTH_TYPES, {error: `must be one of ${AUTH_TYPES.join(', ')}`})

export const generateAuthUrlFields = rules.object({
  ...commonFields,
  channel: text(32).optional(),
  authType: authType.optional(),
  product: text(32).optional(),
  returnPath: text(256).optional(),
  capability: text(32).optional(),
})

/** AuthCodeParam: the common fields (unsigned, so no `sign`) and the code to exchange. */
export const authCodeFields = rules.object({
  ...commonFields,
  authCode: unbounded().min(1, 'is required'),
  authType: authType.optional(),
  authToken: text(64).optional(),
  product: text(32).optional(),
  capability: text(32).optional(),
  channelAppId: text(128).optional(),
  accessToken: unbounded().optional(),
  unionIdentifier: unbounded().optional(),
  queryCode: unbounded().optional(),
})

export type GatewayPrePayRequest = Infer<typeof gatewayPrePayFields.shape>
export type GenerateAuthUrlRequest = Infer<typeof generateAuthUrlFields.shape>
export type AuthCodeRequest = Infer<typeof authCodeFields.shape>
export type PayRequest = Infer<typeof payFields.shape>
export type AllocRequest = Infer<typeof allocFields.shape>
export type TransferRequest = Infer<typeof transferFields.shape>
export type RefundRequest = Infer<typeof refundFields.shape>

export type {FieldProblem} from './field-rules.js'
export {checkFields, dropAbsent} from './field-rules.js'
