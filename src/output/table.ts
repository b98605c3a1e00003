// Tables: fitted to the terminal's width, tab-separated rows when piped (for cut, awk,
// spreadsheets). Widths are display columns, so Chinese titles (two columns a character) align.
import {UsageError} from '../errors.js'

// Control characters (escape sequences from an unverified callback, say) never reach the
// terminal; line breaks survive only inside terminal records, where values wrap.
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g
const safe = (text: string) => text.replace(CONTROL, (c) => (c === '\t' ? ' ' : ''))
const clean = (text: string) => safe(text.replace(/[\t\n\r]/g, ' '))

const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u{FE00}-\u{FE0F}]/u
// East Asian Wide and Fullwidth blocks, and the emoji blocks terminals draw two columns wide.
const WIDE: [number, number][] = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff],
  [0xa000, 0xa4cf], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60],
  [0xffe0, 0xffe6], [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
]

function charWidth(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0
  const code = char.codePointAt(0)!
  return WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1
}

/** Columns a string takes on a terminal. */
export function displayWidth(text: string): number {
  let width = 0
  for (const char of text) width += charWidth(char)
  return width
}

/** Cuts to at most `width` columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  let out = ''
  let used = 0
  for (const char of text) {
    const w = charWidth(char)
    if (used + w > width - 1) break
    out += char
    used += w
  }
  return `${out}…`
}

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - displayWidth(text)))

/** Hard-wraps one line at `width` columns (values are ids, URLs, signatures: no word breaks). */
function wrap(line: string, width: number): string[] {
  const lines: string[] = []
  let current = ''
  let used = 0
  for (const char of line) {
    const w = charWidth(char)
    if (used + w > width && current) {
      lines.push(current)
      current = ''
      used = 0
    }
    current += char
    used += w
  }
  lines.push(current)
  return lines
}

/** The terminal's width; 80 when it cannot be told. */
export function terminalWidth(): number {
  return process.stdout.columns || Number(process.env.COLUMNS) || 80
}

/** One record as label/value lines: labels padded to the longest, long values wrapped under the value column. */
export function renderRecord(rows: [label: string, value: string][], tty: boolean, width = terminalWidth()): string {
  const present = rows.filter(([, value]) => value !== '')
  if (!tty) return present.map(([label, value]) => `${label}\t${clean(value)}`).join('\n')
  const labelWidth = Math.max(0, ...present.map(([label]) => displayWidth(safe(label))))
  const valueWidth = Math.max(20, width - labelWidth - 2)
  const lines: string[] = []
  for (const [label, value] of present) {
    const wrapped = safe(value.replace(/\r\n?/g, '\n')).split('\n').flatMap((line) => wrap(line, valueWidth))
    wrapped.forEach((line, i) => lines.push(`${pad(i === 0 ? safe(label) : '', labelWidth)}  ${line}`.trimEnd()))
  }
  return lines.join('\n')
}

export interface TableOptions {
  /** Terminal width in columns (default: the terminal's). */
  width?: number
  /** Columns to show, in this order (--columns). */
  columns?: string[]
  /** Every column at full width, wider than the terminal if need be (--wide). */
  wide?: boolean
  /** Columns most important first; those that do not fit are left out (default: header order). */
  importance?: string[]
  /** Told which columns were left out to fit the width. */
  onHidden?: (hidden: string[]) => void
}

const GAP = 2
// Values this short (amounts, statuses, times, order numbers) are shown whole or not at all: a
// cut amount misleads and a cut number cannot be copied.
const WHOLE = 24

/** Many records as columns. */
export function renderRows(headers: string[], rows: string[][], tty: boolean, options: TableOptions = {}): string {
  let shown = headers.map((_, i) => i)
  if (options.columns) shown = pickColumns(headers, options.columns)
  if (!tty) return [headers, ...rows].map((row) => shown.map((i) => clean(row[i] ?? '')).join('\t')).join('\n')
  const cells = rows.map((row) => headers.map((_, i) => clean(row[i] ?? '')))
  const natural = headers.map((header, i) => Math.max(displayWidth(header), ...cells.map((row) => displayWidth(row[i]))))
  let widths = [...natural]
  if (!options.wide) {
    const width = options.width ?? terminalWidth()
    const candidates = shown
    const fitted = fit(headers, natural, candidates, width, options.columns ? undefined : options.importance)
    shown = fitted.shown
    widths = fitted.widths
    // chosen columns too (--columns) can be too many for the width: never left out silently
    const hidden = candidates.filter((i) => !shown.includes(i)).map((i) => headers[i])
    if (hidden.length) options.onHidden?.(hidden)
  }
  const line = (row: string[]) => shown.map((i) => pad(truncate(row[i], widths[i]), widths[i])).join(' '.repeat(GAP)).trimEnd()
  return [line(headers), line(headers.map((_, i) => '─'.repeat(widths[i]))), ...cells.map(line)].join('\n')
}

function pickColumns(headers: string[], wanted: string[]): number[] {
  const unknown = wanted.filter((name) => !headers.includes(name))
  if (unknown.length) throw new UsageError(`unknown column ${unknown.map((n) => `"${n}"`).join(', ')}; columns: ${headers.join(', ')}`)
  return wanted.map((name) => headers.indexOf(name))
}

/**
 * Picks the columns that fit, most important first, each at least its minimum (short values
 * whole, long ones cut to 12 columns), then gives the room left to the important ones.
 */
function fit(headers: string[], natural: number[], candidates: number[], width: number, importance?: string[]): {shown: number[]; widths: number[]} {
  const rank = (i: number) => {
    const at = importance?.indexOf(headers[i]) ?? -1
    return at === -1 ? (importance?.length ?? 0) + i : at
  }
  const byImportance = [...candidates].sort((a, b) => rank(a) - rank(b))
  const minimum = natural.map((w, i) => (w <= WHOLE ? w : Math.max(displayWidth(headers[i]), 12)))
  const chosen: number[] = []
  let used = 0
  for (const i of byImportance) {
    const need = minimum[i] + (chosen.length ? GAP : 0)
    if (used + need > width) continue
    chosen.push(i)
    used += need
  }
  // The most important column is shown even on a terminal too narrow for its minimum.
  if (!chosen.length && byImportance.length) {
    chosen.push(byImportance[0])
    used = width
  }
  const widths = [...minimum]
  if (chosen.length === 1) widths[chosen[0]] = Math.min(natural[chosen[0]], Math.max(width, 1))
  let room = width - used
  for (const i of chosen) {
    const grow = Math.min(room, natural[i] - widths[i])
    if (grow > 0) {
      widths[i] += grow
      room -= grow
    }
  }
  return {shown: candidates.filter((i) => chosen.includes(i)), widths}
}
