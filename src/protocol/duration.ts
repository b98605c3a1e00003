// Durations as a person writes them, one rule for every command that takes one (`--wait` of the
// batch commands, `sandbox clock advance`): a number and a unit (ms, s, m, h, d), or several in a
// row (1h30m); a bare number is seconds, as `sleep 30` reads it.

const UNIT_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}

/** The rule, as the commands' help and errors state it. */
export const DURATION_RULE = 'a number and a unit (ms, s, m, h, d), or several (1h30m); a bare number is seconds'

/** Milliseconds in a duration such as 30, 90s, 31m, 2h, 1d or 1h30m; undefined when `text` is none. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim()
  const parts = /^\d+$/.test(trimmed) ? [[trimmed, trimmed, 's']] : [...trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]], 0)
  return Number.isSafeInteger(ms) ? ms : undefined
}

/** Why `text` was refused, for the command to prefix with the flag or argument it came from. */
export function notADuration(text: string): string {
  return `"${text}" is not a duration; write ${DURATION_RULE}, e.g. 30s, 31m or 1h30m`
}
