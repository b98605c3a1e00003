// Display forms. A value with words for people (money in yuan beside cents, a status in words)
// is a Glossed cell: `value (gloss)` on a terminal, the value alone when piped, so that a script
// reads the word and the cents the platform sent. Unknown values are shown as they came (the
// platform may add enum values).
import {centsToYuan, yuanToCents} from '../protocol/money.js'
import {STATUS_WORDS} from '../protocol/enums.js'
import {formatGmt8, parseGmt8} from '../protocol/time.js'

interface Glossed {
  value: string
  gloss: string
}

/** Every platform time is GMT+8 (the spec); a terminal says so beside it, or in its column's header. */
export const TIME_ZONE = 'GMT+8'

/** A table or record cell: plain text, or a value with its gloss. */
export type Cell = string | Glossed

/** The cell as printed: the gloss only on a terminal. */
export function shown(cell: Cell, tty: boolean): string {
  if (typeof cell === 'string') return cell
  return tty ? `${cell.value} (${cell.gloss})` : cell.value
}

/**
 * Cents as an amount in yuan can be: 19 digits hold any long a platform sends. Longer digit
 * strings (a hostile callback's megabyte of them) are shown as given: BigInt is quadratic in them.
 */
const CONVERTIBLE_CENTS = /^-?\d{1,19}$/

export function money(value: unknown): Cell {
  const text = display(value)
  return CONVERTIBLE_CENTS.test(text) ? {value: text, gloss: `¥${centsToYuan(BigInt(text))}`} : text
}

/** Cents shown in yuan alone (`12.50`), for screens that speak yuan: the compatibility module's. */
export function yuanOfCents(value: unknown): string {
  const text = display(value)
  return CONVERTIBLE_CENTS.test(text) ? centsToYuan(BigInt(text)) : text
}

export function status(value: unknown): Cell {
  const text = display(value)
  const words = STATUS_WORDS[text]
  return words && words !== text ? {value: text, gloss: words} : text
}

/**
 * A time as the GMT+8 `yyyy-MM-dd HH:mm:ss` of every screen (an ISO 8601 one, the management
 * API's, converted), glossed with its zone; anything else as it came.
 */
export function time(value: unknown): Cell {
  const text = display(value)
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return {value: formatGmt8(new Date(text)), gloss: TIME_ZONE}
  return parseGmt8(text) ? {value: text, gloss: TIME_ZONE} : text
}

export const isTime = (cell: Cell | undefined): cell is Glossed => typeof cell === 'object' && cell.gloss === TIME_ZONE

export function display(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'object') {
    if ('value' in (value) && typeof (value).value === 'string') return (value as {value: string}).value
    return JSON.stringify(value)
  }
  return String(value)
}

/** Allocation amounts (total and receivers) in the profile's unit: yuan numbers (6, 3.5) or cents; shown as yuan with two decimals. */
export function allocYuan(value: unknown, unit: 'yuan' | 'cents'): string {
  try {
    return unit === 'cents' ? centsToYuan(BigInt(display(value))) : centsToYuan(yuanToCents(display(value)))
  } catch {
    return display(value)
  }
}
