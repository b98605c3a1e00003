// Platform times are `yyyy-MM-dd HH:mm:ss` in GMT+8 whatever the machine's time zone.
const OFFSET_MS = 8 * 60 * 60 * 1000
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

export function formatGmt8(date: Date): string {
  const d = new Date(date.getTime() + OFFSET_MS)
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  )
}

/** Compact GMT+8 stamp for generated numbers: yyyyMMddHHmmss. */
export function compactGmt8(date: Date): string {
  return formatGmt8(date).replace(/[- :]/g, '')
}

export function parseGmt8(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text)
  if (!m) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number)
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - OFFSET_MS
  const date = new Date(ms)
  return formatGmt8(date) === text ? date : undefined
}

/** ISO 8601 with the +08:00 offset, as the management API writes times. */
export function isoGmt8(date: Date): string {
  return `${formatGmt8(date).replace(' ', 'T')}+08:00`
}
