// JSON that keeps number literals exactly as written: 19-digit ids and decimals such as 12.50
// must reach the canonical string untouched, so responses are never verified after a
// re-serialisation through JS numbers.
import {createRequire} from 'node:module'
import type * as Lossless from 'lossless-json'
import {formatNumber, MAX_NUMBER_CHARS, MAX_STRING_TO_SIGN_CHARS, plainNumberLength} from './canonical.js'

// By require(): lossless-json's CommonJS build is one file, its ES build ten (4 to 5 ms of a start).
const {isLosslessNumber, LosslessNumber, stringify} = createRequire(import.meta.url)('lossless-json') as typeof Lossless
type LosslessNumber = Lossless.LosslessNumber

export {isLosslessNumber, LosslessNumber}

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | LosslessNumber
  | JsonValue[]
  | {[key: string]: JsonValue}

export type JsonObject = {[key: string]: JsonValue}

export class JsonSyntaxError extends Error {}

/** JSON refused for what reading it would cost, not for its syntax (protocol-notes section 1). */
export class JsonTooCostlyError extends JsonSyntaxError {}

/** Why a "__proto__" key is refused where a body is taken in or sent: no spec field has it, and JavaScript readers that assign it change the object's prototype instead. */
export const PROTO_KEY_REFUSED = 'the key "__proto__" is refused: JavaScript readers take it as the prototype, not a field'

/** An object with a key twice, with two values: which one is meant is not clear. */
export class JsonRepeatedKeyError extends JsonSyntaxError {
  constructor(
    readonly key: string,
    /** Where the second one starts in the text. */
    readonly position: number,
    message: string,
  ) {
    super(message)
  }
}

/** JSON that holds a number whose plain form is over MAX_NUMBER_CHARS (protocol-notes section 1). */
export class JsonNumberTooLongError extends JsonTooCostlyError {}

/**
 * JSON whose string to sign would be over MAX_STRING_TO_SIGN_CHARS: flattening repeats a key for
 * every value under it, so 70 KB of text (one 20,000-character key over 25,000 values) flattens to 500 million characters.
 */
export class StringToSignTooLongError extends JsonTooCostlyError {}

/** How deep arrays and objects may nest: far beyond any spec body, and within every reader's stack. */
export const MAX_JSON_DEPTH = 512

/** A number literal as a LosslessNumber, refused when its plain form would be over MAX_NUMBER_CHARS. */
function losslessNumber(literal: string, path: number): LosslessNumber {
  // without an exponent the plain form is never longer than the literal
  const long = literal.length > MAX_NUMBER_CHARS || /[eE]/.test(literal)
  const length = long ? plainNumberLength(literal) : literal.length
  if (length > MAX_NUMBER_CHARS) {
    throw new JsonNumberTooLongError(`the number ${literal.slice(0, 24)}${literal.length > 24 ? '...' : ''} written out would be over ${MAX_NUMBER_CHARS} characters`)
  }
  flattened(path, length)
  return new LosslessNumber(literal)
}

const ESCAPES: Record<string, string> = {'"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t'}

/** Two parsed values alike: a key repeated with the same value is harmless, with another it is refused. */
function sameValue(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true
  if (isLosslessNumber(a) || isLosslessNumber(b)) return isLosslessNumber(a) && isLosslessNumber(b) && a.value === b.value
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]))
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]))
}

// The parser's state: one parse at a time (nothing it calls parses JSON), kept at module level so
// the hot loops read and write plain variables rather than an object's fields.
let text = ''
let at = 0
let depth = 0
/** How long the string to sign of what was read so far would be (an upper bound). */
let flatChars = 0
/** The items of the arrays being read, innermost last, up to `top` (see parseArray). */
const items: JsonValue[] = []
let top = 0
/** Told of names and scalars as they are read (see JsonReader); undefined inside a repeated key's value. */
let reader: JsonReader | undefined
/** Where the parser is: the names and indexes down to the value being read, `depth` of them. */
const trail: (string | number)[] = []

/**
 * Told of every member name and every scalar (not null) as it is read, with the path to it: the
 * names and indexes in `path` up to `length`, its own name or index last. A caller learns in the
 * parse what a walk over the result would cost again (a megabyte of nested arrays walked twice
 * costs twice a parse). Never told of the value of a key repeated with the same value.
 */
export interface JsonReader {
  key(path: readonly (string | number)[], length: number): void
  scalar(value: string | boolean | LosslessNumber, path: readonly (string | number)[], length: number): void
}
/** A run of string characters that need no look: up to a quote, a backslash or a control character. */
// eslint-disable-next-line no-control-regex -- the control characters JSON forbids unescaped
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y

/**
 * Parses JSON text keeping every number as its literal (LosslessNumber). One pass over the text,
 * strings sliced rather than built character by character; nesting is bounded (MAX_JSON_DEPTH),
 * so no input can exhaust the stack of this parser or of the code that walks what it returns.
 */
export function parseJson(input: string, tell?: JsonReader): JsonValue {
  text = input
  at = 0
  depth = 0
  flatChars = 0
  reader = tell
  try {
    const value = parseValue(0)
    skipSpace()
    if (at < text.length) fail('end of input expected')
    return value
  } finally {
    text = ''
    items.length = top = trail.length = 0
    reader = undefined
  }
}

function fail(what: string): never {
  const got = at < text.length ? `but got ${JSON.stringify(text[at])}` : 'but reached the end of input'
  throw new JsonSyntaxError(`${what} ${got} at position ${at}`)
}

function skipSpace(): void {
  let code = text.charCodeAt(at)
  while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) code = text.charCodeAt(++at)
}

/**
 * Counts a value into the string to sign: its flattened key (`path` characters long), `=`, the
 * value and `&`. Refused past the bound, before anything builds that string.
 */
function flattened(path: number, value: number): void {
  flatChars += path + value + 2
  if (flatChars > MAX_STRING_TO_SIGN_CHARS) {
    throw new StringToSignTooLongError(`its string to sign would be over ${MAX_STRING_TO_SIGN_CHARS} characters (each value repeats its whole key): refused`)
  }
}

/** A value whose flattened key is `path` characters long (section 1: `a.b[0].c`). */
function parseValue(path: number): JsonValue {
  skipSpace()
  const code = text.charCodeAt(at)
  if (code === 0x22) {
    const value = parseString()
    flattened(path, value.length)
    reader?.scalar(value, trail, depth)
    return value
  }
  if (code === 0x7b) return parseObject(path)
  if (code === 0x5b) return parseArray(path)
  if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
    const value = parseNumber(path)
    reader?.scalar(value, trail, depth)
    return value
  }
  if (text.startsWith('true', at)) return flattened(path, 4), (at += 4), reader?.scalar(true, trail, depth), true
  if (text.startsWith('false', at)) return flattened(path, 5), (at += 5), reader?.scalar(false, trail, depth), false
  // null is skipped by the flattening
  if (text.startsWith('null', at)) return (at += 4), null
  return fail('a JSON value expected')
}

/** Past an opening `{` or `[`: whether the container closes at once (`close` is its closing character). */
function openEmpty(close: number): boolean {
  if (++depth > MAX_JSON_DEPTH) fail(`nested deeper than ${MAX_JSON_DEPTH} levels`)
  at++
  skipSpace()
  if (text.charCodeAt(at) !== close) return false
  closeContainer()
  return true
}

/** Past the closing `}` or `]`. */
function closeContainer(): void {
  at++
  depth--
}

function parseObject(path: number): JsonObject {
  const object: JsonObject = {}
  if (openEmpty(0x7d)) return object
  for (;;) {
    skipSpace()
    const keyAt = at
    if (text.charCodeAt(at) !== 0x22) fail('a quoted object key expected')
    const key = parseString()
    skipSpace()
    if (text.charCodeAt(at) !== 0x3a) fail("':' expected after an object key")
    at++
    const repeated = Object.hasOwn(object, key)
    const listening = reader
    if (listening) {
      trail[depth - 1] = key
      // a repeat must have the same value (else it is refused below): it is told once
      if (repeated) reader = undefined
      else listening.key(trail, depth)
    }
    const value = parseValue(path === 0 ? key.length : path + 1 + key.length)
    reader = listening
    if (!repeated) {
      // as JSON.parse does: a "__proto__" key is a field, never the object's prototype
      if (key === '__proto__') Object.defineProperty(object, key, {value, enumerable: true, writable: true, configurable: true})
      else object[key] = value
    } else if (!sameValue(object[key], value)) {
      throw new JsonRepeatedKeyError(key, keyAt, `the key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}...` : key)} at position ${keyAt} is repeated with another value`)
    }
    skipSpace()
    const next = text.charCodeAt(at)
    if (next === 0x7d) break
    if (next !== 0x2c) fail("',' or '}' expected")
    at++
  }
  closeContainer()
  return object
}

function parseArray(path: number): JsonValue[] {
  if (openEmpty(0x5d)) return []
  // items wait on one shared stack and become an array of their exact length when it closes:
  // an array grown by push holds room for 17 items, ten times a one-item array's bytes, which a
  // body of nested arrays turns into a heap to collect
  const start = top
  // an item's key adds `[index]`: two brackets and the index's digits
  let itemPath = path + 3
  let wider = 10
  for (;;) {
    if (top - start === wider) {
      itemPath++
      wider *= 10
    }
    if (reader) trail[depth - 1] = top - start
    const item = parseValue(itemPath)
    items[top++] = item
    skipSpace()
    const next = text.charCodeAt(at)
    if (next === 0x5d) break
    if (next !== 0x2c) fail("',' or ']' expected")
    at++
  }
  closeContainer()
  // a literal for one item: slice's call cost more than the parse of a one-item array
  const array = top - start === 1 ? [items[start]] : items.slice(start, top)
  top = start
  return array
}

/** From the opening quote; text without escapes is one slice of the input. */
function parseString(): string {
  let start = ++at
  PLAIN_RUN.lastIndex = start
  PLAIN_RUN.test(text)
  at = PLAIN_RUN.lastIndex
  if (text.charCodeAt(at) === 0x22) return text.slice(start, at++)
  let out = ''
  for (;;) {
    out += text.slice(start, at)
    const code = text.charCodeAt(at)
    if (code === 0x22) {
      at++
      return out
    }
    if (code !== 0x5c) fail(Number.isNaN(code) ? "'\"' expected to end the string" : 'a control character must be escaped in a string')
    const escape = text[at + 1]
    if (escape === 'u') {
      const hex = text.slice(at + 2, at + 6)
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('four hex digits expected after \\u')
      out += String.fromCharCode(parseInt(hex, 16))
      at += 6
    } else {
      const char = escape === undefined ? undefined : ESCAPES[escape]
      if (char === undefined) {
        at++
        fail('an escape character expected after \\')
      }
      out += char
      at += 2
    }
    start = at
    PLAIN_RUN.lastIndex = at
    PLAIN_RUN.test(text)
    at = PLAIN_RUN.lastIndex
  }
}

function parseDigits(start: number): void {
  const from = at
  let code = text.charCodeAt(at)
  while (code >= 0x30 && code <= 0x39) code = text.charCodeAt(++at)
  if (at === from) fail(`a digit expected in the number ${JSON.stringify(text.slice(start, at))}`)
}

function parseNumber(path: number): LosslessNumber {
  const start = at
  if (text.charCodeAt(at) === 0x2d) at++
  if (text.charCodeAt(at) === 0x30) at++
  else parseDigits(start)
  if (text.charCodeAt(at) === 0x2e) {
    at++
    parseDigits(start)
  }
  const e = text.charCodeAt(at)
  if (e === 0x65 || e === 0x45) {
    const sign = text.charCodeAt(++at)
    if (sign === 0x2b || sign === 0x2d) at++
    parseDigits(start)
  }
  return losslessNumber(text.slice(start, at), path)
}

export function parseJsonObject(text: string, tell?: JsonReader): JsonObject {
  const value = parseJson(text, tell)
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isLosslessNumber(value)) {
    throw new JsonSyntaxError('expected a JSON object')
  }
  return value
}

/** Serialises values that may hold LosslessNumbers, numbers printed exactly as parsed. */
export function stringifyJson(value: unknown, indent?: number): string {
  return stringify(value, undefined, indent) ?? 'null'
}

/**
 * Converts LosslessNumbers to plain numbers where that is exact, and to their literal string
 * otherwise, for validation and display.
 */
export function toPlain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (isLosslessNumber(value)) {
    const n = Number(value.value)
    // exact as a JS number (6.50 is 6.5); long ids and over-precise decimals stay literal strings
    return Number.isFinite(n) && formatNumber(String(n)) === formatNumber(value.value) && (!Number.isInteger(n) || Number.isSafeInteger(n)) ? n : value.value
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const item = toPlain((value as Record<string, unknown>)[key])
    // a `__proto__` key stays a field: assigned, it would become the object's prototype
    if (key === '__proto__') Object.defineProperty(out, key, {value: item, enumerable: true, writable: true, configurable: true})
    else out[key] = item
  }
  return out
}
