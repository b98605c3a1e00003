// Display forms. A value with words for people (money in yuan beside cents, a status in words)
// is a Glossed cell: `value (gloss)` on a terminal, the value alone when piped, so that a script
// reads the word and the cents the platform sent. Unknown values are shown as they came (the
// platform may add enum values).
import {centsToYuan} from '../protocol/money.js'
import {STATUS_WORDS} from '../protocol/enums.js'
import {formatGmt8} from '../protocol/time.js'

interface Glossed {
  value: string
  gloss: string
}

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

/** An ISO 8601 time (the management API's) as the GMT+8 `yyyy-MM-dd HH:mm:ss` of every other screen. */
export function time(value: unknown): string {
  const text = display(value)
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return text
  return formatGmt8(new Date(text))
}

export function display(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'object') {
    if ('value' in (value as object) && typeof (value as {value: unknown}).value === 'string') return (value as {value: string}).value
    return JSON.stringify(value)
  }
  return String(value)
}
