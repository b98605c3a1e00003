import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {endpoints, unsignedEndpoints} from '../../src/protocol/endpoints.js'
import {checkFields, dropAbsent, type Check, type ErrorText, type Fields, type IssueSink, typeMismatch} from '../../src/protocol/field-rules.js'
import {allocFieldsInCents, transferRowFields} from '../../src/protocol/schemas.js'

// Every rule is written once (schemas.ts) and read by one checker (field-rules.ts), which must
// say what zod 4 says, problem for problem: the words and the order users have always seen. So
// each endpoint's rules are built into the zod schema they stand for, and both check the same
// bodies: every field, every kind of value, beside the values the rules across fields read.

/** What a rule is, as field-rules.ts keeps it (its classes are its own). */
type RuleData =
  | {kind: 'optional'; rule: RuleData}
  | {kind: 'string' | 'number' | 'boolean'; error?: ErrorText; checks: Check[]}
  | {kind: 'enum'; values: [string, ...string[]]; error: ErrorText; checks: Check[]}
  | {kind: 'array'; item: RuleData; error?: ErrorText; checks: Check[]}
  | {kind: 'object'; shape: Record<string, RuleData>; refinement?: (body: unknown, ctx: IssueSink) => void; checks: Check[]}

const params = (error?: ErrorText) => (error === undefined ? undefined : {error})

/** zod's checks, as string, number and array schemas have them. */
interface Bounded {
  max(limit: number, message: string): z.ZodType
  min(limit: number, message: string): z.ZodType
  int(message: string): z.ZodType
}

/** The zod schema of a rule's type, before its checks. */
function typeOf(rule: Exclude<RuleData, {kind: 'optional'}>): z.ZodType {
  switch (rule.kind) {
    case 'string':
      return z.string(params(rule.error))
    case 'number':
      return z.number(params(rule.error))
    case 'boolean':
      return z.boolean(params(rule.error))
    case 'enum':
      return z.enum(rule.values, {error: rule.error})
    case 'array':
      return z.array(toZod(rule.item), params(rule.error))
    case 'object': {
      const object = z.object(Object.fromEntries(Object.entries(rule.shape).map(([name, field]) => [name, toZod(field)])))
      const refinement = rule.refinement
      return refinement ? object.superRefine((value, ctx) => refinement(value, {addIssue: ({path, message}) => ctx.addIssue({code: 'custom', path, message})})) : object
    }
  }
}

/** The zod schema a rule stands for. */
function toZod(rule: RuleData): z.ZodType {
  if (rule.kind === 'optional') return toZod(rule.rule).optional()
  let schema = typeOf(rule)
  for (const check of rule.checks) {
    const bounded = schema as unknown as Bounded
    if (check.kind === 'int') schema = bounded.int(check.message)
    else if (check.kind === 'refine') schema = schema.refine(check.test as (value: unknown) => boolean, typeof check.message === 'function' ? {error: check.message} : check.message)
    else if (check.kind === 'maxLength' || check.kind === 'max') schema = bounded.max(check.limit, check.message)
    else schema = bounded.min(check.limit, check.message)
  }
  return schema
}

/** What zod says of a body once its absent values are taken out: the path the way the spec writes it. */
function zodSays(schema: z.ZodType, fields: Fields, body: unknown) {
  const result = schema.safeParse(dropAbsent(fields, body))
  if (result.success) return []
  return result.error.issues.map((issue) => ({
    field: issue.path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index ? `.${String(part)}` : String(part))).join(''),
    message: plainWords(issue.message),
  }))
}

/** zod's own wording of a wrong type, where a rule gives none, in the checker's words (typeMismatch). */
function plainWords(message: string): string {
  const mismatch = /^Invalid input: expected (\w+), received (\S+)$/.exec(message)
  return mismatch ? typeMismatch(mismatch[1], mismatch[2]) : message
}

const long = (n: number) => 'x'.repeat(n)
const emoji = (n: number) => '😀'.repeat(n)
const values: unknown[] = [
  undefined, null, '', 'x', 'cny', 'CNY', long(9), long(33), long(51), long(65), long(101), long(129), long(201), long(257), long(501), long(513), long(1025), long(2049),
  emoji(32), emoji(33), emoji(51), emoji(101), '\ud83d'.repeat(40),
  'https://shop.example.com/n', 'ftp://x', '{"a":1}', '{', '2025-01-01 10:00:00', '2025-13-01 10:00:00',
  'walletA_jsapi', 'walletB_barcode', 'nope', '134567890123456789', '2512', 'cashier', 'walletC_pay', 'MERCHANT_ID', 'walletA', 'walletB', 'openid', 'user_id', 'Jane',
  0, 1, 29, 30, 100, -1, 1.5, 0.001, 0.01, 12.34, 99_999_999.99, 200_000, 10_000_000_001, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, true, false,
  [], ['a'], [long(33), 5], Array(11).fill('a'), [null], [{}], [[]], [5], Array(51).fill({}),
  {}, {length: 40}, {longitude: 'x'}, {terminalNo: null, storeNo: long(65)},
]
/** Nested objects: each of their fields tried with these, inside a list of two where the field is a list. */
const nestedValues: unknown[] = [undefined, null, '', 'x', long(65), long(257), long(1025), emoji(129), 0, 1, 1.5, 0.001, 123, 99_999_999, 100_000_000, -0.5, 'USER_ID', 'nope', true, [], [null], {}]
// the values the rules across fields read, tried beside each value of each field
const contexts: Record<string, unknown>[] = [
  {method: 'walletA_jsapi'}, {method: 'walletB_barcode'}, {authCode: '2512'}, {method: 'walletA_barcode', authCode: '2512'},
  {orderNo: 'P1'}, {tradeNo: 'T1'}, {refundNo: 'R1'}, {allocNo: 'A1'}, {transferNo: 'T1'}, {bizTransferNo: 'K1'}, {bizTransferNo: 'K1', channel: 'walletB'},
  {channel: 'walletA', payeeType: 'openid', amount: 20}, {channel: 'walletA', payeeType: 'openid', amount: 300_000}, {channel: 'walletA', payeeName: 'Jane', transferScene: 'S'}, {channel: 'walletD', payeeType: 'user_id'},
]
const valid: Record<string, unknown> = {
  mchNo: 'M1', reqId: 'R1', reqTime: '2025-01-01 10:00:00', bizOrderNo: 'B1', title: 'Coffee', amount: 100, useCancel: false, bizAllocNo: 'A1',
  receivers: [{receiverType: 'USER_ID', receiverAccount: '2088', amount: 1}], channel: 'walletB', channelMchNo: 'CM1', bizTransferNo: 'K1', payeeType: 'user_id', payeeAccount: '2088',
  gatewayPayType: 'cashier', authCode: 'C1',
}

const unwrap = (rule: RuleData) => (rule.kind === 'optional' ? rule.rule : rule)

/** Compares the checker with zod on a body built from every field and value; returns how many bodies. */
function compare(name: string, fields: Fields): number {
  const rules = fields as unknown as RuleData & {kind: 'object'}
  const schema = toZod(rules)
  const base = Object.fromEntries(Object.keys(rules.shape).filter((field) => field in valid).map((field) => [field, valid[field]]))
  const tried = rules.refinement ? [{}, ...contexts.filter((context) => Object.keys(context).every((field) => field in rules.shape))] : [{}]
  const bodies: Record<string, unknown>[] = []
  for (const context of tried) {
    for (const field of [...Object.keys(rules.shape), 'unknownField']) for (const value of values) bodies.push({...base, ...context, [field]: value})
  }
  for (const [field, rule] of Object.entries(rules.shape)) {
    const inner = unwrap(rule)
    const nested = inner.kind === 'array' ? unwrap(inner.item) : inner
    if (nested.kind !== 'object') continue
    const first = Object.fromEntries(Object.keys(nested.shape).map((key) => [key, (valid[field] as Record<string, unknown>[] | undefined)?.[0]?.[key] ?? 'x']))
    for (const key of [...Object.keys(nested.shape), 'unknownField']) {
      for (const value of nestedValues) bodies.push({...base, [field]: inner.kind === 'array' ? [first, {...first, [key]: value}] : {[key]: value}})
    }
  }
  // compared as text (a toEqual per body would take most of the time); the first few that differ are shown whole
  const differ = []
  for (const body of bodies) {
    const problems = checkFields(fields, body)
    const zods = zodSays(schema, fields, body)
    if (JSON.stringify(problems) !== JSON.stringify(zods)) differ.push({body, problems, zod: zods})
  }
  expect(differ.slice(0, 3), `${name}: ${differ.length} bodies differ`).toEqual([])
  return bodies.length
}

describe('the field rules say what zod says', () => {
  const all: [string, Fields][] = [
    ...Object.entries(endpoints).map(([name, endpoint]): [string, Fields] => [name, endpoint.fields]),
    ['auth', unsignedEndpoints.auth.fields],
    ['allocFieldsInCents', allocFieldsInCents],
    ['transferRowFields', transferRowFields],
  ]
  const distinct = all.filter(([, fields], index) => all.findIndex(([, other]) => other === fields) === index)

  it.each(distinct)('%s: every field, every kind of value, and every field of its nested objects', (name, fields) => {
    expect(compare(name, fields)).toBeGreaterThan(Object.keys(fields.shape).length * values.length)
  })

  it('builds the zod schema each rule stands for (the oracle is not empty-handed)', () => {
    const pay = toZod(endpoints.pay.fields as unknown as RuleData)
    expect(zodSays(pay, endpoints.pay.fields, {...valid, title: long(101), amount: 1.5, terminal: [], goodsDetail: null})).toEqual([
      {field: 'title', message: 'must be at most 100 characters'},
      {field: 'amount', message: 'must be a whole number'},
    ])
  })
})

describe('the declared fields', () => {
  it('are those of the rules, in their order (what --data may carry)', () => {
    for (const endpoint of Object.values(endpoints)) expect(endpoint.fieldNames).toEqual(Object.keys(endpoint.fields.shape))
    expect(endpoints.pay.fieldNames.slice(0, 8)).toEqual(['mchNo', 'appId', 'channelMchNo', 'reqId', 'nonceStr', 'reqTime', 'clientIp', 'bizOrderNo'])
  })
})
