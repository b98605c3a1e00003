// The /unipay/* string to sign (protocol-notes section 1). Requests, responses and callbacks
// all use it, so the client, the sandbox and the `verify` diagnosis share this one module.
import {createRequire} from 'node:module'
import type * as Lossless from 'lossless-json'

// By require(), as json.ts does: the one-file CommonJS build, and the same instance.
const {isLosslessNumber} = createRequire(import.meta.url)('lossless-json') as typeof Lossless

export type Pair = [key: string, value: string]

/**
 * Writes a JSON number literal the way the platform does: no exponent, no trailing zeros in
 * the fraction, integers as plain digits of any length.
 */
export function formatNumber(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal.trim())
  if (!match) throw new Error(`not a number literal: ${literal}`)
  const [, sign, intPart, fracPart = '', exp = '0'] = match
  let digits = intPart + fracPart
  let point = intPart.length + Number(exp)
  if (point < 0) {
    digits = '0'.repeat(-point) + digits
    point = 0
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length)
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0'
  const fraction = digits.slice(point).replace(/0+$/, '')
  const text = fraction ? `${whole}.${fraction}` : whole
  return sign && /[1-9]/.test(text) ? `-${text}` : text
}

function scalarText(value: unknown): string | undefined {
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

function flattenInto(value: unknown, key: string, out: Pair[]): void {
  if (value === null || value === undefined) return
  if (Array.isArray(value)) {
    value.forEach((item, index) => flattenInto(item, `${key}[${index}]`, out))
    return
  }
  if (typeof value === 'object' && !isLosslessNumber(value)) {
    for (const [child, item] of Object.entries(value)) flattenInto(item, key ? `${key}.${child}` : child, out)
    return
  }
  const text = scalarText(value)
  if (text !== undefined) out.push([key, text])
}

/** Flattens a body into sorted pairs, without the top-level `sign` (any letter case). */
export function canonicalPairs(body: Record<string, unknown>): Pair[] {
  const out: Pair[] = []
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() === 'sign') continue
    flattenInto(value, key, out)
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

export function joinPairs(pairs: Pair[]): string {
  return pairs.map(([key, value]) => `${key}=${value}`).join('&')
}

export function canonicalString(body: Record<string, unknown>): string {
  return joinPairs(canonicalPairs(body))
}

/**
 * Flattens an object into string values, as callbacks carry their `data` (protocol-notes
 * section 5): `{"details[0].amount": "1"}`.
 */
export function flattenToStrings(value: Record<string, unknown>): Record<string, string> {
  const out: Pair[] = []
  for (const [key, item] of Object.entries(value)) flattenInto(item, key, out)
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
