// Durations for `sandbox clock advance`: a number with a unit, or several (1h30m).
import {UsageError} from '../errors.js'

const UNIT_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}

/** Milliseconds in a duration such as 90s, 31m, 2h, 1d or 1h30m; a usage error otherwise. */
export function parseDuration(text: string, flag = 'DURATION'): number {
  const trimmed = text.trim()
  const parts = [...trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
    throw new UsageError(`${flag}: "${text}" is not a duration; write a number and a unit (ms, s, m, h, d), e.g. 31m, 2h or 1h30m`)
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]], 0)
  if (ms <= 0 || !Number.isSafeInteger(ms)) throw new UsageError(`${flag}: "${text}" must be more than 0 (the clock only moves forward)`)
  return ms
}
