// Exact conversions between cents (integers) and yuan strings; no floating point on the way.
export const MAX_PAY_CENTS = 9_999_999_999
/** A transfer's ceiling in cents (the spec's 100,000,000.00 yuan). */
export const MAX_TRANSFER_CENTS = 10_000_000_000

export class MoneyFormatError extends Error {}

const YUAN = /^(\d+)(?:\.(\d{1,2}))?$/
/** More digits than any limit has: such a value is not converted (BigInt is slow on a long run of digits). */
const MAX_YUAN_DIGITS = 20
const OVER_EVERY_LIMIT = 10n ** 30n

function yuanInCents(yuan: string): bigint {
  const m = YUAN.exec(yuan.trim())
  if (!m) throw new MoneyFormatError(`"${yuan}" is not an amount in yuan with at most 2 decimals`)
  if (m[1].replace(/^0+(?=\d)/, '').length > MAX_YUAN_DIGITS) return OVER_EVERY_LIMIT
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'))
}

/** "12.3" -> 1230. At most two decimals, no sign, no exponent. */
export function yuanToCents(yuan: string): number {
  const cents = yuanInCents(yuan)
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyFormatError(`"${yuan}" is too large`)
  return Number(cents)
}

/**
 * Yuan a person gave (--yuan, a batch's yuan column) in cents, within the limits of the field it
 * fills, which are said in yuan: the field's own rule would name cents and the other flag.
 */
export function yuanToCentsWithin(yuan: string, minCents: number, maxCents: number): number {
  const cents = yuanInCents(yuan)
  if (cents > BigInt(maxCents)) throw new MoneyFormatError(`must be at most ${centsToYuan(maxCents)} yuan`)
  if (cents < BigInt(minCents)) throw new MoneyFormatError(`must be at least ${centsToYuan(minCents)} yuan`)
  return Number(cents)
}

/** 1230 -> "12.30". */
export function centsToYuan(cents: number | bigint): string {
  const value = BigInt(cents)
  const sign = value < 0n ? '-' : ''
  const abs = value < 0n ? -value : value
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`
}
