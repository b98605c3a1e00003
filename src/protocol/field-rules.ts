// What a request's fields may hold. schemas.ts writes each endpoint's rules once with the
// builders here (`rules.string()`, `.max()`, `.optional()`, ...: zod's names, parameters and
// chains, which the schemas were first written in); the client checks a body with them before sending, the sandbox before
// answering (10506), a batch on every row. A rule is data (its type, its checks in order, its
// messages) read by one checker, so no signed call loads zod (it cost more than half a bare Node
// start, and a batch row ~15 µs). The words and the order of problems are zod 4's:
// test/protocol/field-rules.test.ts builds zod schemas from these rules and holds the two equal
// on every field of every endpoint.
import {PROTO_KEY_REFUSED} from './json.js'

export interface FieldProblem {
  field: string
  message: string
}

/** A problem and whether it stops the checks after it (a wrong type does; a length does not): zod's `continue`. */
interface Found extends FieldProblem {
  stops: boolean
}

/** A message, or one made from the value received (as zod's `error` functions make theirs). */
export type ErrorText = string | ((issue: {input: unknown}) => string)

/** A check after the type's, run in the order written. */
export type Check =
  | {kind: 'maxLength' | 'minLength' | 'max' | 'min'; limit: number; message: string}
  | {kind: 'int'; message: string}
  | {kind: 'refine'; test: (value: never) => boolean; message: ErrorText}

/** zod's name for what was received, in "expected X, received Y". */
function received(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  return typeof value
}

/** What a type is called in a message: plain words, not the validator's ("expected boolean, received string"). */
const TYPE_WORDS: Record<string, string> = {boolean: 'true or false (a JSON boolean)', number: 'a number', array: 'a list (a JSON array)', object: 'an object', string: 'a string'}
const RECEIVED_WORDS: Record<string, string> = {boolean: 'true or false', number: 'a number', array: 'a list', object: 'an object', string: 'a string'}

/** A value of the wrong type (zod's names for both types), in plain words. */
export function typeMismatch(expected: string, got: string): string {
  if (got === 'undefined') return 'is required'
  return `must be ${TYPE_WORDS[expected] ?? expected}, not ${RECEIVED_WORDS[got] ?? got}`
}

/** zod checks the length of anything that has one, of the wrong type too (a list given for a string). */
const hasLength = (value: unknown) => value !== undefined && value !== null && (value as {length?: unknown}).length !== undefined

/** Characters are code points (an emoji is one), as zod counts them; only a string near the limit needs counting. */
function codePoints(text: string): number {
  let count = text.length
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--
      i++
    }
  }
  return count
}

/** Whether a value fails a check: `stop` when nothing after it is checked (a fraction for a whole number). */
function fails(check: Check, value: unknown): boolean | 'stop' {
  switch (check.kind) {
    case 'maxLength': {
      const units = (value as {length: number}).length
      return !((typeof value === 'string' && units > check.limit ? codePoints(value) : units) <= check.limit)
    }
    case 'minLength': {
      const units = (value as {length: number}).length
      return !((typeof value === 'string' && units >= check.limit && units < check.limit * 2 ? codePoints(value) : units) >= check.limit)
    }
    case 'max':
      return !((value as number) <= check.limit)
    case 'min':
      return !((value as number) >= check.limit)
    case 'int':
      return !Number.isInteger(value) ? 'stop' : !Number.isSafeInteger(value)
    case 'refine':
      return !check.test(value as never)
  }
}

const stopsSince = (found: Found[], start: number) => {
  for (let i = start; i < found.length; i++) if (found[i].stops) return true
  return false
}

/**
 * A rule for one value: its type (`kind`, zod's word for it), then its checks. Immutable: a
 * check makes a new rule. Each kind checks in its own method, so that the code checking a value
 * sees one kind of rule and stays fast (the sandbox checks every request, a batch every row).
 */
abstract class Rule<T> {
  /** The type of a value that passes (request types are made from it); never set. */
  declare readonly value: T
  abstract readonly kind: 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'object'

  constructor(
    /** The message for a value of the wrong type; typeMismatch's words without one. */
    readonly error?: ErrorText,
    readonly checks: readonly Check[] = [],
  ) {}

  /** Checks a value that is there, adding what is wrong with it to `found`. */
  abstract check(value: unknown, field: string, found: Found[]): void

  optional(): Optional<T> {
    return new Optional(this)
  }

  protected wrongType(value: unknown, field: string, found: Found[]): void {
    const message = typeof this.error === 'function' ? this.error({input: value}) : (this.error ?? typeMismatch(this.kind, received(value)))
    found.push({field, message, stops: true})
  }
}

/** A rule's checks, after its type's (and its items' or fields') problems from `start` on. */
function runChecks(checks: readonly Check[], value: unknown, field: string, found: Found[], start: number): void {
  let stopped = stopsSince(found, start)
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i]
    // a length is checked even after a wrong type; anything else only while nothing has stopped
    if (check.kind === 'maxLength' || check.kind === 'minLength' ? typeof value !== 'string' && !hasLength(value) : stopped) continue
    const failed = fails(check, value)
    if (!failed) continue
    found.push({field, message: typeof check.message === 'function' ? check.message({input: value}) : check.message, stops: failed === 'stop'})
    if (failed === 'stop') stopped = true
  }
}

/** A field that may be absent: `null`, and `[]` where an object is expected, are absent too (protocol-notes section 1). */
class Optional<T> {
  declare readonly value: T
  readonly kind = 'optional'
  constructor(readonly rule: Rule<T>) {}

  check(value: unknown, field: string, found: Found[]): void {
    if (value !== undefined) this.rule.check(value, field, found)
  }
}

type Field = Rule<unknown> | Optional<unknown>
type Shape = Record<string, Field>
type OptionalKeys<S extends Shape> = {[K in keyof S]: S[K] extends Optional<unknown> ? K : never}[keyof S]
/** The type of an object that passes a shape. */
export type Infer<S extends Shape> = {[K in Exclude<keyof S, OptionalKeys<S>>]: S[K]['value']} & {[K in OptionalKeys<S>]?: S[K]['value']}
/** A body as a rule across fields sees it: fields of the right type, or absent (`null` too). */
export type Received<S extends Shape> = {[K in keyof S]?: S[K]['value'] | null}

class StringRule extends Rule<string> {
  readonly kind = 'string'
  check(value: unknown, field: string, found: Found[]): void {
    const start = found.length
    if (typeof value !== 'string') this.wrongType(value, field, found)
    if (this.checks.length > 0) runChecks(this.checks, value, field, found, start)
  }
  max(limit: number, message: string) {
    return new StringRule(this.error, [...this.checks, {kind: 'maxLength', limit, message}])
  }
  min(limit: number, message: string) {
    return new StringRule(this.error, [...this.checks, {kind: 'minLength', limit, message}])
  }
  refine(test: (value: string) => boolean, message: ErrorText) {
    return new StringRule(this.error, [...this.checks, {kind: 'refine', test, message}])
  }
  regex(pattern: RegExp, message: string) {
    return this.refine((value) => pattern.test(value), message)
  }
}

class NumberRule extends Rule<number> {
  readonly kind = 'number'
  check(value: unknown, field: string, found: Found[]): void {
    const start = found.length
    if (typeof value !== 'number' || !Number.isFinite(value)) this.wrongType(value, field, found)
    if (this.checks.length > 0) runChecks(this.checks, value, field, found, start)
  }
  /** A safe integer (a fraction stops the checks after it; an unsafe integer does not). */
  int(message: string) {
    return new NumberRule(this.error, [...this.checks, {kind: 'int', message}])
  }
  min(limit: number, message: string) {
    return new NumberRule(this.error, [...this.checks, {kind: 'min', limit, message}])
  }
  max(limit: number, message: string) {
    return new NumberRule(this.error, [...this.checks, {kind: 'max', limit, message}])
  }
  refine(test: (value: number) => boolean, message: string) {
    return new NumberRule(this.error, [...this.checks, {kind: 'refine', test, message}])
  }
}

class BooleanRule extends Rule<boolean> {
  readonly kind = 'boolean'
  check(value: unknown, field: string, found: Found[]): void {
    if (typeof value !== 'boolean') this.wrongType(value, field, found)
  }
}

class EnumRule<V extends string> extends Rule<V> {
  readonly kind = 'enum'
  constructor(
    readonly values: readonly V[],
    error: ErrorText,
  ) {
    super(error)
  }
  check(value: unknown, field: string, found: Found[]): void {
    if (typeof value !== 'string' || !(this.values as readonly string[]).includes(value)) this.wrongType(value, field, found)
  }
}

class ArrayRule<T> extends Rule<T[]> {
  readonly kind = 'array'
  constructor(
    readonly item: Rule<T>,
    error?: ErrorText,
    checks?: readonly Check[],
  ) {
    super(error, checks)
  }
  check(value: unknown, field: string, found: Found[]): void {
    const start = found.length
    if (!Array.isArray(value)) {
      this.wrongType(value, field, found)
    } else {
      // a list that is too long is reported alone, before its items, and nothing after it runs (zod's size cap)
      for (const check of this.checks) {
        if (check.kind === 'maxLength' && value.length > check.limit) return void found.push({field, message: check.message, stops: true})
      }
      for (let index = 0; index < value.length; index++) this.item.check(value[index], `${field}[${index}]`, found)
    }
    if (this.checks.length > 0) runChecks(this.checks, value, field, found, start)
  }
  max(limit: number, message: string) {
    return new ArrayRule(this.item, this.error, [...this.checks, {kind: 'maxLength', limit, message}])
  }
  min(limit: number, message: string) {
    return new ArrayRule(this.item, this.error, [...this.checks, {kind: 'minLength', limit, message}])
  }
}

/** How a rule across fields reports a problem: zod's `ctx.addIssue`, the path one field name. */
export interface IssueSink {
  addIssue(issue: {path: [string]; message: string}): void
}
/** Where a rule across fields adds its problems, under the object's path. */
class Issues implements IssueSink {
  constructor(
    private readonly found: Found[],
    private readonly prefix: string,
  ) {}
  addIssue(issue: {path: [string]; message: string}): void {
    this.found.push({field: this.prefix + issue.path[0], message: issue.message, stops: false})
  }
}

/** A rule across fields (zod's superRefine): it sees the body as received, each field of the right type or absent. */
type Refinement<S extends Shape> = (body: Received<S>, ctx: IssueSink) => void

class ObjectRule<S extends Shape> extends Rule<Infer<S>> {
  readonly kind = 'object'
  /** The shape as lists, walked by index: this runs for every field of every call the sandbox answers. */
  private readonly names: string[]
  private readonly rules: Field[]
  constructor(
    readonly shape: S,
    /** Runs only when no field has stopped the checks (a wrong type), as zod's superRefine. */
    readonly refinement?: Refinement<S>,
  ) {
    super()
    this.names = Object.keys(shape)
    this.rules = this.names.map((name) => shape[name])
  }
  check(value: unknown, field: string, found: Found[]): void {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return this.wrongType(value, field, found)
    const start = found.length
    const prefix = field ? `${field}.` : ''
    const {names, rules} = this
    for (let i = 0; i < names.length; i++) {
      const rule = rules[i]
      const entry = (value as Record<string, unknown>)[names[i]]
      rule.check(entry === null || (Array.isArray(entry) && entry.length === 0 && expectsObject(rule)) ? undefined : entry, prefix + names[i], found)
    }
    if (this.refinement && !stopsSince(found, start)) this.refinement(value, new Issues(found, prefix))
  }
  /** The same fields with some replaced or added, under the same rule across them (zod's safeExtend). */
  extend<E extends Shape>(shape: E): ObjectRule<Omit<S, keyof E> & E> {
    // the assertions pick the type the new rule is made for (the rule sees an unasserted one as unnecessary)
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    return new ObjectRule({...this.shape, ...shape} as Omit<S, keyof E> & E, this.refinement as Refinement<Omit<S, keyof E> & E> | undefined)
  }
  superRefine(refinement: Refinement<S>): ObjectRule<S> {
    return new ObjectRule(this.shape, refinement)
  }
}

const expectsObject = (rule: Field) => (rule instanceof Optional ? rule.rule : rule).kind === 'object'

/** zod's builders, with zod's names and parameters: schemas.ts reads as zod schemas do (`rules.string()` for `z.string()`). */
export const rules = {
  string: (params?: {error: ErrorText}) => new StringRule(params?.error),
  number: (params?: {error: ErrorText}) => new NumberRule(params?.error),
  boolean: (params?: {error: ErrorText}) => new BooleanRule(params?.error),
  enum: <V extends string>(values: readonly V[], params: {error: ErrorText}) => new EnumRule(values, params.error),
  array: <T>(item: Rule<T>, params?: {error: ErrorText}) => new ArrayRule(item, params?.error),
  object: <S extends Shape>(shape: S) => new ObjectRule(shape),
}
export type Fields<S extends Shape = Shape> = ObjectRule<S>

/** The problems of a body: each names the field's path the way the spec writes it (`goodsDetail[0].goodsId`). */
export function checkFields(fields: Fields, body: unknown): FieldProblem[] {
  const found: Found[] = []
  fields.check(body, '', found)
  return found.map(({field, message}) => ({field, message}))
}

/**
 * What a body means once absent values are taken out (protocol-notes section 1): SDKs send
 * unset fields as `null`, and PHP encodes an empty map as `[]`, so a `null` anywhere and an
 * empty array where an object is expected are absent, never "is required" or a type error.
 */
export function dropAbsent(rule: Field | undefined, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  const inner = rule instanceof Optional ? rule.rule : rule
  if (Array.isArray(value)) {
    const item = inner instanceof ArrayRule ? (inner.item as Field) : undefined
    return value.map((entry) => dropAbsent(item, entry))
  }
  const shape: Shape = inner instanceof ObjectRule ? (inner as ObjectRule<Shape>).shape : {}
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key]
    if (entry === null || entry === undefined) continue
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined
    if (Array.isArray(entry) && entry.length === 0 && field && expectsObject(field)) continue
    out[key] = dropAbsent(field, entry)
  }
  return out
}

// in a u-mode expression a surrogate pair is one code point: only an unpaired half matches
const UNPAIRED_SURROGATE = /\p{Cs}/u
const UNPAIRED_SURROGATE_REFUSED = 'holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry'

/**
 * What a field must not hold to be sent. Control characters (C0, DEL and C1: U+009B alone is a
 * terminal's escape sequence) end up in the signed string and in every screen and log that shows
 * it; only JSON text (extraParam) may carry line breaks and tabs.
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
    if (/[\u0000-\u001f\u007f-\u009f]/.test(checked)) found.push({field: path, message: 'must not contain control characters'})
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
