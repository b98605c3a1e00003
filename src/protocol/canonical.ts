// The /unipay/* string to sign (protocol-notes section 1). Requests, responses and callbacks
// all use it, so the client, the sandbox and the `verify` diagnosis share this one module.
import {createRequire} from 'node:module'
import type * as Lossless from 'lossless-json'

// By require(), as json.ts does: the one-file CommonJS build, and the same instance.
const {isLosslessNumber} = createRequire(import.meta.url)('lossless-json') as typeof Lossless

export type Pair = [key: string, value: string]

/** The longest plain decimal form (no exponent) a number may have (protocol-notes section 1). */
export const MAX_NUMBER_CHARS = 100

/**
 * The longest string to sign a received body may flatten to: over three times the largest answer
 * the CLI reads (10 MB). Bounded because a key is repeated for every value under it.
 */
export const MAX_STRING_TO_SIGN_CHARS = 32 * 1024 * 1024

/** A number whose plain decimal form would be longer than MAX_NUMBER_CHARS: refused as unparseable. */
export class NumberTooLongError extends Error {}

const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/

/**
 * Where the digits of a number literal put the decimal point, and how long its plain form is,
 * computed from the literal alone: an exponent of ten million costs nothing to look at.
 */
function analyse(literal: string) {
  const match = NUMBER_LITERAL.exec(literal.trim())
  if (!match) throw new Error(`not a number literal: ${literal.slice(0, 40)}`)
  const [, sign, intPart, fracPart = '', exp = '0'] = match
  const digits = intPart + fracPart
  // the first and last significant digit; Number() of a huge exponent is +-Infinity, and so is the length
  let first = 0
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++
  let last = digits.length - 1
  while (last >= first && digits.charCodeAt(last) === 0x30) last--
  const point = intPart.length + Number(exp)
  if (first > last) return {negative: false, digits, point, first, last, length: 1}
  const whole = point > first ? point - first : 1
  const fraction = last >= point ? last - point + 1 : 0
  return {negative: sign === '-', digits, point, first, last, length: (sign ? 1 : 0) + whole + (fraction ? fraction + 1 : 0)}
}

/** The length of a number literal's plain decimal form (Infinity for an absurd exponent). */
export function plainNumberLength(literal: string): number {
  return analyse(literal).length
}

/**
 * Writes a JSON number literal the way the platform does: no exponent, no trailing zeros in
 * the fraction, integers as plain digits of any length. Linear in the literal; a form longer
 * than MAX_NUMBER_CHARS throws NumberTooLongError instead of being built.
 */
export function formatNumber(literal: string): string {
  if (isPlainInteger(literal)) return literal
  const {negative, digits, point, first, last, length} = analyse(literal)
  if (length > MAX_NUMBER_CHARS) throw new NumberTooLongError(`the number ${literal.slice(0, 24)}${literal.length > 24 ? '...' : ''} written out would be over ${MAX_NUMBER_CHARS} characters`)
  if (first > last) return '0'
  // digits outside the literal are zeros: before it when the point is left of it, after it when right
  const digit = (i: number) => (i < 0 || i >= digits.length ? '0' : digits[i])
  let whole = ''
  for (let i = first; i < point; i++) whole += digit(i)
  let fraction = ''
  for (let i = point; i <= last; i++) fraction += digit(i)
  const text = (whole || '0') + (fraction ? `.${fraction}` : '')
  return negative ? `-${text}` : text
}

/** An integer literal already in its plain form (no sign but a minus, no leading zero, no exponent), short enough. */
function isPlainInteger(literal: string): boolean {
  const length = literal.length
  if (length === 0 || length > MAX_NUMBER_CHARS) return false
  let i = literal.charCodeAt(0) === 0x2d ? 1 : 0
  // "0" is plain, "-0" and "01" are not
  const first = literal.charCodeAt(i)
  if (first === 0x30) return length === 1
  if (first < 0x31 || first > 0x39) return false
  for (i++; i < length; i++) {
    const code = literal.charCodeAt(i)
    if (code < 0x30 || code > 0x39) return false
  }
  return true
}

/** A scalar as the string to sign writes it; undefined for null and for containers. */
export function scalarText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot sign a non-finite number: ${value}`)
    return formatNumber(String(value))
  }
  if (typeof value === 'bigint') return value.toString()
  if (isLosslessNumber(value)) return formatNumber(value.value)
  return undefined
}

/**
 * Flattens `value` under the key whose parts are `path`: names, and indexes as numbers. The key
 * is written out only where a scalar is: a container with nothing under it (`[[[[]]]]`, 500
 * deep) costs no string at all, where writing each level's key cost a hostile body's depth squared.
 */
function flattenInto(value: unknown, path: (string | number)[], out: Pair[]): void {
  if (value === null || value === undefined) return
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index)
      flattenInto(value[index], path, out)
      path.pop()
    }
    return
  }
  if (typeof value === 'object' && !isLosslessNumber(value)) {
    for (const child of Object.keys(value)) {
      path.push(child)
      flattenInto((value as Record<string, unknown>)[child], path, out)
      path.pop()
    }
    return
  }
  const text = scalarText(value)
  if (text !== undefined) out.push([keyOf(path), text])
}

/** `a.b[0].c` from its first `length` parts; a name joins with `.` unless nothing is written before it. */
export function keyOf(path: readonly (string | number)[], length = path.length): string {
  let key = ''
  for (let i = 0; i < length; i++) {
    const part = path[i]
    key += typeof part === 'number' ? `[${part}]` : key === '' ? part : `.${part}`
  }
  return key
}

/**
 * Sorts in place by plain code-unit order, stably. A body has a few dozen keys at most: those
 * are sorted by insertion, without the work arrays Array.prototype.sort allocates on each call.
 */
function sortBy<T>(items: T[], key: (item: T) => string): T[] {
  if (items.length > 32) return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
  for (let i = 1; i < items.length; i++) {
    const item = items[i]
    const k = key(item)
    let j = i - 1
    for (; j >= 0 && key(items[j]) > k; j--) items[j + 1] = items[j]
    items[j + 1] = item
  }
  return items
}

const pairKey = (pair: Pair) => pair[0]
const itself = (text: string) => text

/** The string to sign of a body's pairs, in any order (see JsonReader: pairs gathered as a body is read). */
export function stringToSignOf(pairs: Pair[]): string {
  return joinPairs(sortBy(pairs, pairKey))
}

/** Flattens a body into sorted pairs, without the top-level `sign` (any letter case). */
export function canonicalPairs(body: Record<string, unknown>): Pair[] {
  const out: Pair[] = []
  for (const key of Object.keys(body)) {
    if (key.toLowerCase() === 'sign') continue
    flattenInto(body[key], [key], out)
  }
  return sortBy(out, pairKey)
}

export function joinPairs(pairs: Pair[]): string {
  let text = ''
  for (let i = 0; i < pairs.length; i++) text += i === 0 ? `${pairs[i][0]}=${pairs[i][1]}` : `&${pairs[i][0]}=${pairs[i][1]}`
  return text
}

export function canonicalString(body: Record<string, unknown>): string {
  // most bodies are flat: their keys sorted as they are, with no pair arrays built
  let text = ''
  for (const key of sortBy(Object.keys(body), itself)) {
    const value = body[key]
    if (value !== null && typeof value === 'object' && !isLosslessNumber(value)) return joinPairs(canonicalPairs(body))
    if (key.length === 4 && key.toLowerCase() === 'sign') continue
    const scalar = scalarText(value)
    if (scalar !== undefined) text += text === '' ? `${key}=${scalar}` : `&${key}=${scalar}`
  }
  return text
}

/**
 * Flattens an object into string values, as callbacks carry their `data` (protocol-notes
 * section 5): `{"details[0].amount": "1"}`.
 */
export function flattenToStrings(value: Record<string, unknown>): Record<string, string> {
  const out: Pair[] = []
  for (const key of Object.keys(value)) flattenInto(value[key], [key], out)
  return Object.fromEntries(sortBy(out, pairKey))
}
