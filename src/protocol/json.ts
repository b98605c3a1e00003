// JSON that keeps number literals exactly as written: 19-digit ids and decimals such as 12.50
// must reach the canonical string untouched, so responses are never verified after a
// re-serialisation through JS numbers.
import {createRequire} from 'node:module'
import type * as Lossless from 'lossless-json'
import {formatNumber, MAX_NUMBER_CHARS, NumberTooLongError, plainNumberLength} from './canonical.js'

// By require(): lossless-json's CommonJS build is one file, its ES build ten (4 to 5 ms of a start).
const {isLosslessNumber, LosslessNumber, parse, stringify} = createRequire(import.meta.url)('lossless-json') as typeof Lossless
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

/** Every number as its literal, refused while parsing when it would be too long written out. */
function losslessNumber(literal: string): LosslessNumber {
  if (plainNumberLength(literal) > MAX_NUMBER_CHARS) {
    throw new NumberTooLongError(`the number ${literal.slice(0, 24)}${literal.length > 24 ? '...' : ''} written out would be over ${MAX_NUMBER_CHARS} characters`)
  }
  return new LosslessNumber(literal)
}

/** Parses JSON text keeping every number as its literal (LosslessNumber). */
export function parseJson(text: string): JsonValue {
  try {
    return parse(text, null, losslessNumber) as JsonValue
  } catch (error) {
    if (error instanceof NumberTooLongError) throw new JsonNumberTooLongError(error.message)
    throw new JsonSyntaxError((error as Error).message)
  }
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
