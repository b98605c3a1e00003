// Platform times are `yyyy-MM-dd HH:mm:ss` in GMT+8 whatever the machine's time zone.
const OFFSET_MS = 8 * 60 * 60 * 1000
const pad = (n: number, width = 2) => String(n).padStart(width, '0')

// The last two seconds formatted: a server stamps many answers and orders within one second,
// and an order's default expiredTime (half an hour on) with them.
const recent = [
  {second: Number.NaN, text: ''},
  {second: Number.NaN, text: ''},
]
let older = 0
let compactSecond = Number.NaN
let compactText = ''

export function formatGmt8(date: Date): string {
  const second = Math.floor(date.getTime() / 1000)
  for (const slot of recent) if (slot.second === second) return slot.text
  const d = new Date(second * 1000 + OFFSET_MS)
  const slot = recent[older]
  older ^= 1
  slot.second = second
  slot.text =
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  return slot.text
}

/** Compact GMT+8 stamp for generated numbers: yyyyMMddHHmmss. */
export function compactGmt8(date: Date): string {
  const second = Math.floor(date.getTime() / 1000)
  if (second !== compactSecond) {
    compactText = formatGmt8(date).replace(/[- :]/g, '')
    compactSecond = second
  }
  return compactText
}

/** The time a `yyyy-MM-dd HH:mm:ss` GMT+8 text names; undefined unless it names one exactly (no 02-30, no 24:00:00, no year before 1000). */
export function parseGmt8(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text)
  if (!m) return undefined
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = Number(m[6])
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  const local = Date.UTC(year, month - 1, day, hour, minute, second)
  // a day past the month's end rolls into the next month
  if (new Date(local).getUTCDate() !== day) return undefined
  return new Date(local - OFFSET_MS)
}

/** ISO 8601 with the +08:00 offset, as the management API writes times. */
export function isoGmt8(date: Date): string {
  return `${formatGmt8(date).replace(' ', 'T')}+08:00`
}
