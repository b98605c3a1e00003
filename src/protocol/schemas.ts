// Field rules of the spec (lengths, limits, one-of rules), shared by the client, which checks
// before sending, and the sandbox, which answers 10506 naming the field.
import {z} from 'zod'
import {walletFromBarcode, PAY_METHODS} from './enums.js'
import {MAX_PAY_CENTS} from './money.js'
import {parseGmt8} from './time.js'
import {MAX_TRANSFER_CENTS, PAYEE_TYPES_BY_CHANNEL, TRANSFER_CHANNELS, TRANSFER_PAYEE_TYPES, typeMismatch, type FieldProblem} from './field-rules.js'

const requiredOr = (what: string) => (issue: {input?: unknown}) =>
  issue.input === undefined || issue.input === null ? 'is required' : `must be ${what}`

const text = (max: number) =>
  z.string({error: requiredOr('a string')}).max(max, `must be at most ${max} characters`)
const integer = (min: number, max: number) =>
  z
    .number({error: requiredOr('a number')})
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
const gmt8Time = z
  .string({error: requiredOr('a time')})
  .refine((value) => parseGmt8(value) !== undefined, 'must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)')
const httpUrl = (max: number) =>
  text(max).refine((value) => /^https?:\/\/[^\s]+$/.test(value), 'must be an http(s) URL')
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

const goodsDetailItem = z.object({
  goodsId: text(32),
  goodsName: text(256),
  quantity: integer(1, 99_999_999),
  unitPrice: integer(0, MAX_PAY_CENTS),
  category: text(32).optional(),
  description: text(1000).optional(),
  showUrl: text(400).optional(),
})

const terminalInfo = z.object({
  terminalNo: text(32).optional(),
  storeNo: text(64).optional(),
  operatorId: text(32).optional(),
  deviceName: text(64).optional(),
  deviceIp: text(64).optional(),
  longitude: z.number().optional(),
  latitude: z.number().optional(),
})

/** At least one of the named fields must be present; the first one present wins. */
function oneOf(fields: string[]) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (fields.some((field) => value[field] !== undefined && value[field] !== '')) return
    ctx.addIssue({code: 'custom', path: [fields[0]], message: `one of ${fields.join(' / ')} is required`})
  }
}

export const payFields = z
  .object({
    ...commonFields,
    bizOrderNo: text(100).min(1, 'is required'),
    title: text(100).min(1, 'is required'),
    description: text(50).optional(),
    amount: integer(1, MAX_PAY_CENTS),
    currency: text(8).regex(/^[a-z]{3}$/, 'must be a 3-letter lower-case ISO 4217 code').optional(),
    product: text(32).optional(),
    method: z.enum(PAY_METHODS, {error: 'must be a PayMethodEnum value'}).optional(),
    capability: text(32).optional(),
    openId: text(128).optional(),
    channelAppId: text(128).optional(),
    authCode: text(128).optional(),
    limitPay: z.array(text(32)).max(10, 'must have at most 10 values').optional(),
    extraParam: jsonText(2048).optional(),
    goodsDetail: z.array(goodsDetailItem).max(50, 'must have at most 50 items').optional(),
    notifyUrl: httpUrl(200).optional(),
    returnUrl: httpUrl(200).optional(),
    attach: text(500).optional(),
    expiredTime: gmt8Time.optional(),
    terminal: terminalInfo.optional(),
    allocation: z.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    const method = value.method
    if (method?.endsWith('_barcode') && !value.authCode) {
      ctx.addIssue({code: 'custom', path: ['authCode'], message: `is required for ${method}`})
    }
    if (value.authCode && (!method || method.endsWith('_barcode'))) {
      const wallet = walletFromBarcode(value.authCode)
      if (!wallet) {
        ctx.addIssue({
          code: 'custom',
          path: ['authCode'],
          message: 'must start with a known barcode prefix (10-15 walletA, 25-30 walletB, 62 walletC)',
        })
      } else if (method && !method.startsWith(wallet)) {
        ctx.addIssue({code: 'custom', path: ['method'], message: `contradicts the barcode, which is a ${wallet} code`})
      }
    }
  })

export const closeFields = z
  .object({...commonFields, orderNo: text(100).optional(), bizOrderNo: text(100).optional(), useCancel: z.boolean()})
  .superRefine(oneOf(['orderNo', 'bizOrderNo']))

export const syncPayFields = z
  .object({
    ...commonFields,
    orderNo: text(100).optional(),
    bizOrderNo: text(100).optional(),
    outOrderNo: text(100).optional(),
  })
  .superRefine(oneOf(['orderNo', 'bizOrderNo', 'outOrderNo']))

export const queryPayFields = z
  .object({...commonFields, orderNo: text(100).optional(), bizOrderNo: text(100).optional()})
  .superRefine(oneOf(['orderNo', 'bizOrderNo']))

export const pingFields = z.object({...commonFields})

export const refundFields = z
  .object({
    ...commonFields,
    tradeNo: text(100).optional(),
    bizOrderNo: text(100).optional(),
    amount: integer(1, MAX_PAY_CENTS),
    reason: text(50).optional(),
    bizRefundNo: text(100).optional(),
  })
  .superRefine(oneOf(['tradeNo', 'bizOrderNo']))

export const queryRefundFields = z
  .object({...commonFields, refundNo: text(100).optional(), bizRefundNo: text(100).optional()})
  .superRefine(oneOf(['refundNo', 'bizRefundNo']))

export const syncRefundFields = queryRefundFields

/**
 * Methods that need the payer's openId. Not a field rule: after auth-and-set the platform fills
 * the stored one ("later payments reuse the stored openId"), so only the platform can tell.
 */
export const OPENID_METHODS: readonly string[] = ['walletA_jsapi', 'walletA_mini']

export const ALLOC_RECEIVER_TYPES = ['MERCHANT_ID', 'PERSONAL_OPENID', 'PERSONAL_SUB_OPENID', 'USER_ID', 'LOGIN_NAME'] as const
// transfers' lists and limits live with their zod-free rules (field-rules.ts)
const MAX_ALLOC_YUAN = 99_999_999.99

/** Receiver amounts are yuan numbers with at most two decimals (0.01 to 99999999.99). */
const yuanAmount = z
  .number({error: requiredOr('a number of yuan')})
  .min(0.01, 'must be at least 0.01 (yuan)')
  .max(MAX_ALLOC_YUAN, `must be at most ${MAX_ALLOC_YUAN} (yuan)`)
  .refine((value) => /^\d+(\.\d{1,2})?$/.test(String(value)), 'must have at most 2 decimals (yuan)')

const allocReceiver = z.object({
  receiverType: z.enum(ALLOC_RECEIVER_TYPES, {error: `must be one of ${ALLOC_RECEIVER_TYPES.join(', ')}`}),
  receiverAccount: text(128).min(1, 'is required'),
  receiverName: text(64).optional(),
  amount: yuanAmount,
})

export const allocFields = z
  .object({
    ...commonFields,
    bizAllocNo: text(100).min(1, 'is required'),
    tradeNo: text(100).optional(),
    bizOrderNo: text(100).optional(),
    title: text(100).optional(),
    description: text(500).optional(),
    receivers: z.array(allocReceiver, {error: requiredOr('a list')}).min(1, 'needs at least one receiver'),
    attach: text(500).optional(),
    notifyUrl: httpUrl(200).optional(),
  })
  .superRefine(oneOf(['tradeNo', 'bizOrderNo']))

/** Receiver amounts in whole cents: what the official SDKs send, and some deployments take. */
export const allocFieldsInCents = allocFields.safeExtend({
  receivers: z
    .array(allocReceiver.safeExtend({amount: integer(1, Math.round(MAX_ALLOC_YUAN * 100))}), {error: requiredOr('a list')})
    .min(1, 'needs at least one receiver'),
})

export const queryAllocFields = z
  .object({...commonFields, allocNo: text(100).optional(), bizAllocNo: text(100).optional()})
  .superRefine(oneOf(['allocNo', 'bizAllocNo']))

/** The business part of a transfer, checked per row in batches as well as per call. */
const transferBusinessShape = {
  channel: z.enum(TRANSFER_CHANNELS, {error: `must be one of ${TRANSFER_CHANNELS.join(', ')}`}),
  channelMchNo: text(32).min(1, 'is required'),
  bizTransferNo: text(100).min(1, 'is required'),
  amount: integer(1, MAX_TRANSFER_CENTS),
  title: text(100).optional(),
  reason: text(200).optional(),
  payeeType: z.enum(TRANSFER_PAYEE_TYPES, {error: `must be one of ${TRANSFER_PAYEE_TYPES.join(', ')}`}),
  payeeAccount: text(100).min(1, 'is required'),
  payeeName: text(100).optional(),
  attach: text(500).optional(),
  notifyUrl: httpUrl(200).optional(),
  reportInfos: z.array(z.object({infoType: text(64).min(1, 'is required'), infoContent: text(1024)})).optional(),
  transferScene: text(32).optional(),
}

/** Per-channel rules of the spec: payee types, walletA payee names by amount, scenes. */
function checkTransferRules(value: {channel?: string; payeeType?: string; amount?: number; payeeName?: string; transferScene?: string; reportInfos?: unknown[]}, ctx: z.RefinementCtx): void {
  const channel = value.channel as (typeof TRANSFER_CHANNELS)[number] | undefined
  if (!channel || !PAYEE_TYPES_BY_CHANNEL[channel]) return
  if (value.payeeType && !PAYEE_TYPES_BY_CHANNEL[channel].includes(value.payeeType)) {
    ctx.addIssue({code: 'custom', path: ['payeeType'], message: `${value.payeeType} is not taken by ${channel} (use ${PAYEE_TYPES_BY_CHANNEL[channel].join(' or ')})`})
  }
  if (channel === 'walletA' && typeof value.amount === 'number') {
    if (value.amount < 30 && value.payeeName) {
      ctx.addIssue({code: 'custom', path: ['payeeName'], message: 'must be empty for walletA transfers below 0.30 yuan'})
    }
    if (value.amount >= 200_000 && !value.payeeName) {
      ctx.addIssue({code: 'custom', path: ['payeeName'], message: 'is required (the payee\'s real name) for walletA transfers of 2000 yuan or more'})
    }
  }
  if (channel === 'walletA' && value.transferScene) {
    ctx.addIssue({code: 'custom', path: ['transferScene'], message: 'is not sent for walletA (the scene bound in the channel merchant configuration applies)'})
  }
}

export const transferRowFields = z.object(transferBusinessShape).superRefine(checkTransferRules)

export const transferFields = z.object({...commonFields, ...transferBusinessShape}).superRefine(checkTransferRules)

export const queryTransferFields = z
  .object({
    ...commonFields,
    transferNo: text(100).optional(),
    bizTransferNo: text(100).optional(),
    channel: text(32).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.transferNo) return
    if (!value.bizTransferNo) ctx.addIssue({code: 'custom', path: ['transferNo'], message: 'give transferNo, or bizTransferNo with channel'})
    else if (!value.channel) ctx.addIssue({code: 'custom', path: ['channel'], message: 'is required with bizTransferNo'})
  })

export const GATEWAY_TYPES = ['cashier', 'aggregate'] as const
export const AUTH_TYPES = ['walletA', 'walletB', 'walletC_pay', 'walletD'] as const
/** Fields the spec gives no maximum length for. */
const unbounded = () => z.string({error: requiredOr('a string')})

export const gatewayPrePayFields = z.object({
  ...commonFields,
  bizOrderNo: text(100).min(1, 'is required'),
  title: text(100).min(1, 'is required'),
  description: text(50).optional(),
  amount: integer(1, MAX_PAY_CENTS),
  currency: text(8).regex(/^[a-z]{3}$/, 'must be a 3-letter lower-case ISO 4217 code').optional(),
  gatewayPayType: z.enum(GATEWAY_TYPES, {error: requiredOr('cashier or aggregate')}),
  notifyUrl: httpUrl(256).optional(),
  returnUrl: httpUrl(256).optional(),
  attach: text(512).optional(),
  extraParam: jsonText(2048).optional(),
  expiredTime: gmt8Time.optional(),
  storeNo: text(64).optional(),
  goodsDetail: z.array(goodsDetailItem).max(50, 'must have at most 50 items').optional(),
  allocation: z.boolean().optional(),
})

export const queryGatewayFields = z
  .object({...commonFields, orderNo: text(64).optional(), bizOrderNo: text(100).optional()})
  .superRefine(oneOf(['orderNo', 'bizOrderNo']))

const authType = z.enum(AUTH_TYPES, {error: `must be one of ${AUTH_TYPES.join(', ')}`})

export const generateAuthUrlFields = z.object({
  ...commonFields,
  channel: text(32).optional(),
  authType: authType.optional(),
  product: text(32).optional(),
  returnPath: text(256).optional(),
  capability: text(32).optional(),
})

/** AuthCodeParam: the common fields (unsigned, so no `sign`) and the code to exchange. */
export const authCodeFields = z.object({
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

export type GatewayPrePayRequest = z.infer<typeof gatewayPrePayFields>
export type GenerateAuthUrlRequest = z.infer<typeof generateAuthUrlFields>
export type AuthCodeRequest = z.infer<typeof authCodeFields>
export type PayRequest = z.infer<typeof payFields>
export type AllocRequest = z.infer<typeof allocFields>
export type TransferRequest = z.infer<typeof transferFields>
export type RefundRequest = z.infer<typeof refundFields>

export type {FieldProblem} from './field-rules.js'

/** The schema under `.optional()` / `.nullable()` wrappers. */
function unwrapped(schema: z.ZodType | undefined): z.ZodType | undefined {
  let inner = schema
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType
  return inner
}

/**
 * What a body means once absent values are taken out (protocol-notes section 1): SDKs send
 * unset fields as `null`, and PHP encodes an empty map as `[]`, so a `null` anywhere and an
 * empty array where an object is expected are absent, never "is required" or a type error.
 */
export function dropAbsent(schema: z.ZodType | undefined, value: unknown): unknown {
  // before looking at the schema: zod's instanceof checks cost a call each, on every field
  if (value === null || typeof value !== 'object') return value
  const inner = unwrapped(schema)
  if (Array.isArray(value)) {
    const item = inner instanceof z.ZodArray ? (inner.element as z.ZodType) : undefined
    return value.map((entry) => dropAbsent(item, entry))
  }
  const shape = inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : {}
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key]
    if (entry === null || entry === undefined) continue
    if (Array.isArray(entry) && entry.length === 0 && unwrapped(shape[key]) instanceof z.ZodObject) continue
    out[key] = dropAbsent(shape[key], entry)
  }
  return out
}

/** Validates a body; problems name the field path the way the spec writes it. */
/** zod's own wording of a wrong type, where a schema gives none, in the words of typeMismatch. */
function plainWords(message: string): string {
  const mismatch = /^Invalid input: expected (\w+), received (\w+)$/.exec(message)
  return mismatch ? typeMismatch(mismatch[1], mismatch[2]) : message
}

export function checkFields(schema: z.ZodType, body: unknown): FieldProblem[] {
  const result = schema.safeParse(dropAbsent(schema, body))
  if (result.success) return []
  return result.error.issues.map((issue) => ({
    field: issue.path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index ? `.${String(part)}` : String(part))).join(''),
    message: plainWords(issue.message),
  }))
}
