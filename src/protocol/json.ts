// JSON that keeps number literals exactly as written: 19-digit ids and decimals such as 12.50
// must reach the canonical string untouched, so responses are never verified after a
// re-serialisation through JS numbers.
import {createRequire} from 'node:module'
import type * as Lossless from 'lossless-json'
import {formatNumber, MAX_NUMBER_CHARS, plainNumberLength} from './canonical.js'

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

/** JSON that holds a number whose plain form is over MAX_NUMBER_CHARS (protocol-notes section 1). */
export class JsonNumberTooLongError extends JsonSyntaxError {}

/** How deep arrays and objects may nest: far beyond any spec body, and within every reader's stack. */
export const MAX_JSON_DEPTH = 512

/** A number literal as a LosslessNumber, refused when its plain form would be over MAX_NUMBER_CHARS. */
function losslessNumber(literal: string): LosslessNumber {
  // without an exponent the plain form is never longer than the literal
  const long = literal.length > MAX_NUMBER_CHARS || /[eE]/.test(literal)
  if (long && plainNumberLength(literal) > MAX_NUMBER_CHARS) {
    throw new JsonNumberTooLongError(`the number ${literal.slice(0, 24)}${literal.length > 24 ? '...' : ''} written out would be over ${MAX_NUMBER_CHARS} characters`)
  }
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

/**
 * A JSON parser that keeps every number as its literal (LosslessNumber). One pass over the text,
 * strings sliced rather than built character by character; nesting is bounded (MAX_JSON_DEPTH),
 * so no input can exhaust the stack of this parser or of the code that walks what it returns.
 */
class Parser {
  private i = 0
  private depth = 0

  constructor(private readonly text: string) {}

  parse(): JsonValue {
    const value = this.value()
    this.space()
    if (this.i < this.text.length) this.fail('end of input expected')
    return value
  }

  private fail(what: string): never {
    const {text, i} = this
    const got = i < text.length ? `but got ${JSON.stringify(text[i])}` : 'but reached the end of input'
    throw new JsonSyntaxError(`${what} ${got} at position ${i}`)
  }

  private space(): void {
    const {text} = this
    let code = text.charCodeAt(this.i)
    while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) code = text.charCodeAt(++this.i)
  }

  private value(): JsonValue {
    this.space()
    const code = this.text.charCodeAt(this.i)
    if (code === 0x22) return this.string()
    if (code === 0x7b) return this.object()
    if (code === 0x5b) return this.array()
    if (code === 0x2d || (code >= 0x30 && code <= 0x39)) return this.number()
    if (this.keyword('true')) return true
    if (this.keyword('false')) return false
    if (this.keyword('null')) return null
    return this.fail('a JSON value expected')
  }

  private keyword(word: string): boolean {
    if (!this.text.startsWith(word, this.i)) return false
    this.i += word.length
    return true
  }

  private nest(): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`nested deeper than ${MAX_JSON_DEPTH} levels`)
    this.i++
  }

  private object(): JsonObject {
    this.nest()
    const object: JsonObject = {}
    this.space()
    if (this.text.charCodeAt(this.i) === 0x7d) {
      this.i++
      this.depth--
      return object
    }
    for (;;) {
      this.space()
      const at = this.i
      if (this.text.charCodeAt(at) !== 0x22) this.fail('a quoted object key expected')
      const key = this.string()
      this.space()
      if (this.text.charCodeAt(this.i) !== 0x3a) this.fail("':' expected after an object key")
      this.i++
      const value = this.value()
      if (!Object.hasOwn(object, key)) {
        // as JSON.parse does: a "__proto__" key is a field, never the object's prototype
        if (key === '__proto__') Object.defineProperty(object, key, {value, enumerable: true, writable: true, configurable: true})
        else object[key] = value
      } else if (!sameValue(object[key], value)) {
        throw new JsonSyntaxError(`the key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}...` : key)} at position ${at} is repeated with another value`)
      }
      this.space()
      const next = this.text.charCodeAt(this.i++)
      if (next === 0x7d) break
      if (next !== 0x2c) {
        this.i--
        this.fail("',' or '}' expected")
      }
    }
    this.depth--
    return object
  }

  private array(): JsonValue[] {
    this.nest()
    const array: JsonValue[] = []
    this.space()
    if (this.text.charCodeAt(this.i) === 0x5d) {
      this.i++
      this.depth--
      return array
    }
    for (;;) {
      array.push(this.value())
      this.space()
      const next = this.text.charCodeAt(this.i++)
      if (next === 0x5d) break
      if (next !== 0x2c) {
        this.i--
        this.fail("',' or ']' expected")
      }
    }
    this.depth--
    return array
  }

  /** From the opening quote; text without escapes is one slice of the input. */
  private string(): string {
    const {text} = this
    let start = ++this.i
    let out = ''
    for (;;) {
      const code = text.charCodeAt(this.i)
      if (code === 0x22) {
        out += text.slice(start, this.i++)
        return out
      }
      if (code === 0x5c) {
        out += text.slice(start, this.i)
        const escape = text[this.i + 1]
        if (escape === 'u') {
          const hex = text.slice(this.i + 2, this.i + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('four hex digits expected after \\u')
          out += String.fromCharCode(parseInt(hex, 16))
          this.i += 6
        } else {
          const char = escape === undefined ? undefined : ESCAPES[escape]
          if (char === undefined) {
            this.i++
            this.fail('an escape character expected after \\')
          }
          out += char
          this.i += 2
        }
        start = this.i
      } else if (code < 0x20 || Number.isNaN(code)) {
        this.fail(Number.isNaN(code) ? "'\"' expected to end the string" : 'a control character must be escaped in a string')
      } else this.i++
    }
  }

  private number(): LosslessNumber {
    const {text} = this
    const start = this.i
    const digits = () => {
      const from = this.i
      let code = text.charCodeAt(this.i)
      while (code >= 0x30 && code <= 0x39) code = text.charCodeAt(++this.i)
      if (this.i === from) this.fail(`a digit expected in the number ${JSON.stringify(text.slice(start, this.i))}`)
    }
    if (text.charCodeAt(this.i) === 0x2d) this.i++
    if (text.charCodeAt(this.i) === 0x30) this.i++
    else digits()
    if (text.charCodeAt(this.i) === 0x2e) {
      this.i++
      digits()
    }
    const e = text.charCodeAt(this.i)
    if (e === 0x65 || e === 0x45) {
      const sign = text.charCodeAt(++this.i)
      if (sign === 0x2b || sign === 0x2d) this.i++
      digits()
    }
    return losslessNumber(text.slice(start, this.i))
  }
}

/** Parses JSON text keeping every number as its literal (LosslessNumber). */
export function parseJson(text: string): JsonValue {
  return new Parser(text).parse()
}

export function parseJsonObject(text: string): JsonObject {
  const value = parseJson(text)
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isLosslessNumber(value)) {
    throw new JsonSyntaxError('expected a JSON object')
  }
  return value as JsonObject
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
  if (isLosslessNumber(value)) {
    const n = Number(value.value)
    // exact as a JS number (6.50 is 6.5); long ids and over-precise decimals stay literal strings
    return Number.isFinite(n) && formatNumber(String(n)) === formatNumber(value.value) && (!Number.isInteger(n) || Number.isSafeInteger(n)) ? n : value.value
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      // a `__proto__` key stays a field: assigned, it would become the object's prototype
      if (key === '__proto__') Object.defineProperty(out, key, {value: toPlain(item), enumerable: true, writable: true, configurable: true})
      else out[key] = toPlain(item)
    }
    return out
  }
  return value
}
