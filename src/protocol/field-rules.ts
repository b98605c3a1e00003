// Zod-free field rules for pay create and query pay, which must start fast (loading zod costs
// more than half a bare Node start, more than the whole call otherwise), and for transfers and
// transfer queries, which a batch checks on every row (zod cost a row ~15 µs). Same rules,
// messages and order of problems as the zod schemas in schemas.ts; test/protocol/field-rules.test.ts
// compares the two on every rule. The sandbox checks these endpoints with them too
// (signed-api.ts); the zod schemas stay the reference, and epay's orders are checked by payFields.
import {PAY_METHODS, walletFromBarcode} from './enums.js'
import {PROTO_KEY_REFUSED} from './json.js'
import {MAX_PAY_CENTS} from './money.js'
import {parseGmt8} from './time.js'

export interface FieldProblem {
  field: string
  message: string
}

/** A problem and whether it stops the checks after it (a wrong type does; a length does not). */
interface Found extends FieldProblem {
  stops: boolean
}

type Rule = (value: unknown, field: string, found: Found[]) => void

const requiredOr = (what: string, value: unknown) => (value === undefined || value === null ? 'is required' : `must be ${what}`)

/** Zod's own wording for a wrong type where the schema gives none. */
function received(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN'
  if (typeof value === 'number' && !Number.isFinite(value)) return 'Infinity'
  return typeof value
}
const wrongType = (expected: string, value: unknown) => typeMismatch(expected, received(value))

/** What a type is called in a message: plain words, not the validator's ("expected boolean, received string"). */
const TYPE_WORDS: Record<string, string> = {boolean: 'true or false (a JSON boolean)', number: 'a number', array: 'a list (a JSON array)', object: 'an object', string: 'a string'}
const RECEIVED_WORDS: Record<string, string> = {boolean: 'true or false', number: 'a number', array: 'a list', object: 'an object', string: 'a string'}

/** A value of the wrong type (zod's names for both types), in plain words; one wording for these rules and the zod schemas. */
export function typeMismatch(expected: string, got: string): string {
  if (got === 'undefined') return 'is required'
  return `must be ${TYPE_WORDS[expected] ?? expected}, not ${RECEIVED_WORDS[got] ?? got}`
}
/** zod still checks the length of a value of the wrong type when it has one (a list for a string). */
const hasLength = (value: unknown): value is string | unknown[] => typeof value === 'string' || Array.isArray(value)

function text(max: number, options: {min?: number; what?: string; also?: (value: string) => string | undefined} = {}): Rule {
  return (value, field, found) => {
    if (typeof value !== 'string') {
      found.push({field, message: requiredOr(options.what ?? 'a string', value), stops: true})
      if (!hasLength(value)) return
    }
    if (value.length > max) found.push({field, message: `must be at most ${max} characters`, stops: false})
    if (options.min && value.length < options.min) found.push({field, message: 'is required', stops: false})
    const message = typeof value === 'string' ? options.also?.(value) : undefined
    if (message) found.push({field, message, stops: false})
  }
}

const gmt8Time: Rule = (value, field, found) => {
  if (typeof value !== 'string') return void found.push({field, message: requiredOr('a time', value), stops: true})
  if (parseGmt8(value) === undefined) found.push({field, message: 'must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)', stops: false})
}

function integer(min: number, max: number): Rule {
  return (value, field, found) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return void found.push({field, message: requiredOr('a number', value), stops: true})
    if (!Number.isInteger(value)) return void found.push({field, message: 'must be a whole number', stops: true})
    if (!Number.isSafeInteger(value)) found.push({field, message: 'must be a whole number', stops: false})
    if (value < min) found.push({field, message: `must be at least ${min}`, stops: false})
    if (value > max) found.push({field, message: `must be at most ${max}`, stops: false})
  }
}

const plainNumber: Rule = (value, field, found) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) found.push({field, message: wrongType('number', value), stops: true})
}

const boolean: Rule = (value, field, found) => {
  if (typeof value !== 'boolean') found.push({field, message: wrongType('boolean', value), stops: true})
}

function oneOfValues(values: readonly string[], message: string): Rule {
  return (value, field, found) => {
    if (typeof value !== 'string' || !values.includes(value)) found.push({field, message, stops: true})
  }
}

function list(item: Rule, max: number, tooMany: string): Rule {
  return (value, field, found) => {
    if (!Array.isArray(value)) {
      found.push({field, message: wrongType('array', value), stops: true})
      if (hasLength(value) && value.length > max) found.push({field, message: tooMany, stops: false})
      return
    }
    // zod reports a list that is too long alone, before its items, and stops there
    if (value.length > max) return void found.push({field, message: tooMany, stops: true})
    value.forEach((entry, index) => item(entry, `${field}[${index}]`, found))
  }
}

/** Absent as the schemas' dropAbsent has it (protocol-notes section 1): `null` anywhere. */
const absent = (value: unknown) => value === undefined || value === null

const optional = (rule: Rule): Rule => (value, field, found) => {
  if (!absent(value)) rule(value, field, found)
}

type Shape = Record<string, Rule>

function object(shape: Shape): Rule {
  return (value, field, found) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return void found.push({field, message: wrongType('object', value), stops: true})
    checkShape(shape, value as Record<string, unknown>, `${field}.`, found)
  }
}

// in a u-mode expression a surrogate pair is one code point: only an unpaired half matches
const UNPAIRED_SURROGATE = /\p{Cs}/u
const UNPAIRED_SURROGATE_REFUSED = 'holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry'

/**
 * What a field must not hold to be sent. Control characters end up in the signed string and in
 * every screen and log that shows it; only JSON text (extraParam) may carry line breaks and tabs.
 * An unpaired UTF-16 surrogate has no UTF-8 form, a key with ".", "[" or "]" flattens like a
 * nested field into the same string to sign, and a "__proto__" key is a prototype to JavaScript
 * readers: the platform refuses all three (10506), so they are refused here, before anything is
 * sent. Checked before a request is built, and for a
 * batch's rows while the file is checked (nothing sent yet).
 */
export function unsendableFields(value: unknown, path: string, found: {field: string; message: string}[] = []): {field: string; message: string}[] {
  if (typeof value === 'string') {
    const checked = path === 'extraParam' ? value.replace(/[\t\n\r]/g, '') : value
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    if (/[\u0000-\u001f\u007f]/.test(checked)) found.push({field: path, message: 'must not contain control characters'})
    else if (UNPAIRED_SURROGATE.test(value)) found.push({field: path, message: UNPAIRED_SURROGATE_REFUSED})
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) unsendableFields(value[index], `${path}[${index}]`, found)
  } else if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const key of Object.keys(value)) {
      const field = path ? `${path}.${key}` : key
      if (key === '__proto__') found.push({field, message: PROTO_KEY_REFUSED})
      else if (UNPAIRED_SURROGATE.test(key)) found.push({field, message: `the key ${UNPAIRED_SURROGATE_REFUSED}`})
      else if (/[.[\]]/.test(key)) found.push({field, message: 'the key holds ".", "[" or "]": it would flatten like a nested field into the same string to sign (send the nested object instead)'})
      else unsendableFields((value as Record<string, unknown>)[key], field, found)
    }
  }
  return found
}

/** An optional object: PHP's `[]` for an empty map is absent too, where an object is expected (and only there). */
const optionalObject = (shape: Shape): Rule => {
  const rule = object(shape)
  return (value, field, found) => {
    if (!absent(value) && !(Array.isArray(value) && value.length === 0)) rule(value, field, found)
  }
}

function checkShape(shape: Shape, body: Record<string, unknown>, prefix: string, found: Found[]): void {
  // for-in, not Object.entries: this runs for every field of every call the sandbox answers
  for (const name in shape) shape[name](body[name], prefix + name, found)
}

interface FieldRules {
  shape: Shape
  /** Rules across fields, run only when no field has a wrong type (as zod does). */
  across?: (body: Record<string, unknown>, found: FieldProblem[]) => void
}

export function checkRules(rules: FieldRules, body: Record<string, unknown>): FieldProblem[] {
  const found: Found[] = []
  checkShape(rules.shape, body, '', found)
  const problems = found.map(({field, message}) => ({field, message}))
  if (rules.across && !found.some((problem) => problem.stops)) rules.across(body, problems)
  return problems
}

function oneOf(fields: string[]): FieldRules['across'] {
  return (body, problems) => {
    if (fields.some((field) => !absent(body[field]) && body[field] !== '')) return
    problems.push({field: fields[0], message: `one of ${fields.join(' / ')} is required`})
  }
}

const commonShape: Shape = {
  mchNo: text(32, {min: 1}),
  appId: optional(text(32)),
  channelMchNo: optional(text(32)),
  reqId: text(64, {min: 1}),
  nonceStr: optional(text(32)),
  reqTime: gmt8Time,
  clientIp: optional(text(64)),
}

const httpUrl = (max: number) => text(max, {also: (value) => (/^https?:\/\/[^\s]+$/.test(value) ? undefined : 'must be an http(s) URL')})

function isJson(value: string): boolean {
  try {
    JSON.parse(value)
    return true
  } catch {
    return false
  }
}

export const payRules: FieldRules = {
  shape: {
    ...commonShape,
    bizOrderNo: text(100, {min: 1}),
    title: text(100, {min: 1}),
    description: optional(text(50)),
    amount: integer(1, MAX_PAY_CENTS),
    currency: optional(text(8, {also: (value) => (/^[a-z]{3}$/.test(value) ? undefined : 'must be a 3-letter lower-case ISO 4217 code')})),
    product: optional(text(32)),
    method: optional(oneOfValues(PAY_METHODS, 'must be a PayMethodEnum value')),
    capability: optional(text(32)),
    openId: optional(text(128)),
    channelAppId: optional(text(128)),
    authCode: optional(text(128)),
    limitPay: optional(list(text(32), 10, 'must have at most 10 values')),
    extraParam: optional(text(2048, {also: (value) => (isJson(value) ? undefined : 'must be JSON text')})),
    goodsDetail: optional(
      list(
        object({
          goodsId: text(32),
          goodsName: text(256),
          quantity: integer(1, 99_999_999),
          unitPrice: integer(0, MAX_PAY_CENTS),
          category: optional(text(32)),
          description: optional(text(1000)),
          showUrl: optional(text(400)),
        }),
        50,
        'must have at most 50 items',
      ),
    ),
    notifyUrl: optional(httpUrl(200)),
    returnUrl: optional(httpUrl(200)),
    attach: optional(text(500)),
    expiredTime: optional(gmt8Time),
    terminal: optionalObject({
        terminalNo: optional(text(32)),
        storeNo: optional(text(64)),
        operatorId: optional(text(32)),
        deviceName: optional(text(64)),
        deviceIp: optional(text(64)),
        longitude: optional(plainNumber),
        latitude: optional(plainNumber),
      }),
    allocation: optional(boolean),
  },
  across(body, problems) {
    const method = body.method as string | undefined
    const authCode = body.authCode as string | undefined
    if (method?.endsWith('_barcode') && !authCode) problems.push({field: 'authCode', message: `is required for ${method}`})
    if (authCode && (!method || method.endsWith('_barcode'))) {
      const wallet = walletFromBarcode(authCode)
      if (!wallet) {
        problems.push({field: 'authCode', message: 'must start with a known barcode prefix (10-15 walletA, 25-30 walletB, 62 walletC)'})
      } else if (method && !method.startsWith(wallet)) {
        problems.push({field: 'method', message: `contradicts the barcode, which is a ${wallet} code`})
      }
    }
  },
}

export const queryPayRules: FieldRules = {
  shape: {...commonShape, orderNo: optional(text(100)), bizOrderNo: optional(text(100))},
  across: oneOf(['orderNo', 'bizOrderNo']),
}

export const TRANSFER_CHANNELS = ['walletA', 'walletB', 'walletD'] as const
export const TRANSFER_PAYEE_TYPES = ['openid', 'user_id', 'open_id', 'login_name', 'phone'] as const
/** Which payee types each transfer channel takes (spec table). */
export const PAYEE_TYPES_BY_CHANNEL: Record<(typeof TRANSFER_CHANNELS)[number], readonly string[]> = {
  walletA: ['openid'],
  walletB: ['user_id', 'open_id', 'login_name'],
  walletD: ['openid', 'phone'],
}
export const MAX_TRANSFER_CENTS = 10_000_000_000

/** A transfer's own fields (a batch row's), without the common ones. */
const transferShape: Shape = {
  channel: oneOfValues(TRANSFER_CHANNELS, `must be one of ${TRANSFER_CHANNELS.join(', ')}`),
  channelMchNo: text(32, {min: 1}),
  bizTransferNo: text(100, {min: 1}),
  amount: integer(1, MAX_TRANSFER_CENTS),
  title: optional(text(100)),
  reason: optional(text(200)),
  payeeType: oneOfValues(TRANSFER_PAYEE_TYPES, `must be one of ${TRANSFER_PAYEE_TYPES.join(', ')}`),
  payeeAccount: text(100, {min: 1}),
  payeeName: optional(text(100)),
  attach: optional(text(500)),
  notifyUrl: optional(httpUrl(200)),
  reportInfos: optional(list(object({infoType: text(64, {min: 1}), infoContent: text(1024)}), Number.POSITIVE_INFINITY, '')),
  transferScene: optional(text(32)),
}

/** Per-channel rules of the spec: payee types, walletA payee names by amount, scenes. */
function transferAcross(body: Record<string, unknown>, problems: FieldProblem[]): void {
  const channel = body.channel as (typeof TRANSFER_CHANNELS)[number] | undefined
  if (!channel || !PAYEE_TYPES_BY_CHANNEL[channel]) return
  const payeeType = body.payeeType as string | undefined
  if (payeeType && !PAYEE_TYPES_BY_CHANNEL[channel].includes(payeeType)) {
    problems.push({field: 'payeeType', message: `${payeeType} is not taken by ${channel} (use ${PAYEE_TYPES_BY_CHANNEL[channel].join(' or ')})`})
  }
  if (channel === 'walletA' && typeof body.amount === 'number') {
    if (body.amount < 30 && body.payeeName) problems.push({field: 'payeeName', message: 'must be empty for walletA transfers below 0.30 yuan'})
    if (body.amount >= 200_000 && !body.payeeName) {
      problems.push({field: 'payeeName', message: 'is required (the payee\'s real name) for walletA transfers of 2000 yuan or more'})
    }
  }
  if (channel === 'walletA' && body.transferScene) {
    problems.push({field: 'transferScene', message: 'is not sent for walletA (the scene bound in the channel merchant configuration applies)'})
  }
}

export const transferRowRules: FieldRules = {shape: transferShape, across: transferAcross}

// the common fields first, channelMchNo where they have it: the schema's order of problems
export const transferRules: FieldRules = {shape: {...commonShape, ...transferShape}, across: transferAcross}

export const queryTransferRules: FieldRules = {
  shape: {...commonShape, transferNo: optional(text(100)), bizTransferNo: optional(text(100)), channel: optional(text(32))},
  across(body, problems) {
    if (body.transferNo) return
    if (!body.bizTransferNo) problems.push({field: 'transferNo', message: 'give transferNo, or bizTransferNo with channel'})
    else if (!body.channel) problems.push({field: 'channel', message: 'is required with bizTransferNo'})
  },
}

/** What the pipeline needs of an endpoint: where, how it may be retried, how to check a body. */
export interface CallEndpoint {
  path: string
  /** `create` calls are never resent with a new reqId; `read` calls may be. */
  kind: 'create' | 'read' | 'action'
  /** Defaults the server fills before rebuilding the string, so the client must send them. */
  defaults?: Record<string, unknown>
  /** The fields the endpoint declares (what the client may send), known without loading zod. */
  fieldNames: readonly string[]
  check(body: Record<string, unknown>): FieldProblem[]
  /** What a success carries in `data`: an object (unset), nothing (close), or anything (a path outside the catalog). */
  answerData?: 'none' | 'any'
}

/** The endpoints whose commands load no zod; endpoints.ts adds their zod schemas for the sandbox. */
export const fastEndpoints = {
  pay: {path: '/unipay/pay', kind: 'create', fieldNames: Object.keys(payRules.shape), check: (body) => checkRules(payRules, body)},
  queryPay: {path: '/unipay/query/pay-order', kind: 'read', fieldNames: Object.keys(queryPayRules.shape), check: (body) => checkRules(queryPayRules, body)},
  transfer: {path: '/unipay/transfer', kind: 'create', fieldNames: Object.keys(transferRules.shape), check: (body) => checkRules(transferRules, body)},
  queryTransfer: {path: '/unipay/query/transfer-order', kind: 'read', fieldNames: Object.keys(queryTransferRules.shape), check: (body) => checkRules(queryTransferRules, body)},
} satisfies Record<string, CallEndpoint>
