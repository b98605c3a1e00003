// Exact conversions between cents (integers) and yuan strings; no floating point on the way.
export const MAX_PAY_CENTS = 9_999_999_999

export class MoneyFormatError extends Error {}

/** "12.3" -> 1230. At most two decimals, no sign, no exponent. */
export function yuanToCents(yuan: string): number {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(yuan.trim())
  if (!m) throw new MoneyFormatError(`"${yuan}" is not an amount in yuan with at most 2 decimals`)
  const cents = BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'))
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyFormatError(`"${yuan}" is too large`)
  return Number(cents)
}

/** 1230 -> "12.30". */
export function centsToYuan(cents: number | bigint): string {
  const value = BigInt(cents)
  const sign = value < 0n ? '-' : ''
  const abs = value < 0n ? -value : value
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`
}
