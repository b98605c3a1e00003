// Tables: fitted to the terminal's width, tab-separated rows when piped (for cut, awk,
// spreadsheets). Widths are display columns, so Chinese titles (two columns a character) and
// emoji align. Cells are made printable before they are measured, so that an escaped control
// character takes the columns it is shown in.
import {UsageError} from '../errors.js'
import {printable} from '../protocol/printable.js'
import {isTime, shown, TIME_ZONE, type Cell} from './format.js'

// A cell is one line: tabs and line breaks become spaces (a TSV row stays one row).
const clean = (text: string) => printable(text.replace(/[\t\r\n]+/g, ' '))

// Marks, format characters and variation selectors draw nothing of their own.
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u{FE00}-\u{FE0F}]/u
// Emoji drawn as emoji by default are two columns wide (their East Asian Width is W); the
// property comes with the JavaScript engine's Unicode data, so new emoji need no table change.
// (get-east-asian-width covers every W and F range, but adds 2 ms to a start where this table
// adds nothing measurable; string-width 50 ms with its first call. Issue 29, point 6.)
const EMOJI = /\p{Emoji_Presentation}/u
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/
// East Asian Wide and Fullwidth blocks.
const WIDE: [number, number][] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff],
  [0xa000, 0xa4cf], [0xa960, 0xa97f], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60],
  [0xffe0, 0xffe6], [0x16fe0, 0x16fe4], [0x17000, 0x18cff], [0x1b000, 0x1b2ff], [0x20000, 0x3fffd],
]
const ZWJ = 0x200d
const VS16 = 0xfe0f
const isSkinTone = (code: number) => code >= 0x1f3fb && code <= 0x1f3ff
const isRegionalIndicator = (code: number) => code >= 0x1f1e6 && code <= 0x1f1ff

function charWidth(char: string, code: number): number {
  if (ZERO_WIDTH.test(char)) return 0
  if (EMOJI.test(char)) return 2
  return WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1
}

/**
 * What a terminal draws as one glyph, with its width: a character with the marks, variation
 * selectors and skin tones after it, whatever a zero-width joiner joins to it (an emoji family
 * is one glyph of two columns), and a pair of regional indicators (a flag). Never cut inside one.
 */
function* glyphs(text: string): Generator<[glyph: string, width: number]> {
  let glyph = ''
  let width = 0
  let joining = false
  for (const char of text) {
    const code = char.codePointAt(0)!
    const flag = isRegionalIndicator(code) && glyph.length === 2 && isRegionalIndicator(glyph.codePointAt(0)!)
    if (glyph && (joining || flag || code === ZWJ || isSkinTone(code) || ZERO_WIDTH.test(char))) {
      glyph += char
      // an emoji presentation selector turns a one-column symbol (❤) into a two-column emoji
      if (code === VS16 && width === 1 && PICTOGRAPHIC.test(glyph)) width = 2
      joining = code === ZWJ
      continue
    }
    if (glyph) yield [glyph, width]
    glyph = char
    joining = false
    width = charWidth(char, code)
  }
  if (glyph) yield [glyph, width]
}

/** Columns a string takes on a terminal. */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length
  let width = 0
  for (const [, w] of glyphs(text)) width += w
  return width
}

/** Cuts to at most `width` columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  let out = ''
  let used = 0
  for (const [glyph, w] of glyphs(text)) {
    if (used + w > width - 1) break
    out += glyph
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
  for (const [glyph, w] of glyphs(line)) {
    if (used + w > width && current) {
      lines.push(current)
      current = ''
      used = 0
    }
    current += glyph
    used += w
  }
  lines.push(current)
  return lines
}

/** Wraps prose at spaces where it can (a reason, a message), hard-wrapping a word longer than a line. */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  let current = ''
  for (const word of text.split(' ')) {
    const joined = current ? `${current} ${word}` : word
    if (displayWidth(joined) <= width) {
      current = joined
      continue
    }
    if (current) lines.push(current)
    const pieces = wrap(word, width)
    current = pieces.pop()!
    lines.push(...pieces)
  }
  lines.push(current)
  return lines
}

/** The terminal's width; 80 when it cannot be told. */
export function terminalWidth(): number {
  return process.stdout.columns || Number(process.env.COLUMNS) || 80
}

/**
 * One record as label/value lines: labels padded to the longest, long values wrapped under the
 * value column. Piped, `label<TAB>value` lines of raw values (no glosses), one line each.
 */
export function renderRecord(rows: [label: string, value: Cell][], tty: boolean, width = terminalWidth()): string {
  const present = rows.map(([label, value]): [string, string] => [label, shown(value, tty)]).filter(([, value]) => value !== '')
  if (!tty) return present.map(([label, value]) => `${clean(label)}\t${clean(value)}`).join('\n')
  let labelWidth = 0
  for (const [label] of present) labelWidth = Math.max(labelWidth, displayWidth(clean(label)))
  const valueWidth = Math.max(20, width - labelWidth - 2)
  const lines: string[] = []
  for (const [label, value] of present) {
    const wrapped = printable(value.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')).split('\n').flatMap((line) => wrap(line, valueWidth))
    wrapped.forEach((line, i) => lines.push(`${pad(i === 0 ? clean(label) : '', labelWidth)}  ${line}`.trimEnd()))
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
  /**
   * Columns whose values wrap onto more lines instead of being cut (a reason, a message): such
   * a column takes the room the more important ones leave, before any less important column;
   * when that room is less than its minimum, it is written under its row (`  errorMsg: ...`),
   * never left out.
   */
  wrap?: string[]
  /** Told which columns were left out to fit the width. */
  onHidden?: (hidden: string[]) => void
}

const GAP = 2
// Values this short (amounts, statuses, times, order numbers) are shown whole or not at all: a
// cut amount misleads and a cut number cannot be copied.
const WHOLE = 24

/**
 * Many records as columns; piped, a header line and one tab-separated line of raw values per
 * record. On a terminal a column of times says its zone in its header, once, not on every row.
 */
export function renderRows(headers: string[], rows: Cell[][], tty: boolean, options: TableOptions = {}): string {
  let shownColumns = headers.map((_, i) => i)
  if (options.columns) shownColumns = pickColumns(headers, options.columns)
  const times = headers.map((_, i) => tty && rows.some((row) => isTime(row[i])) && rows.every((row) => isTime(row[i]) || NO_TIME.has(shown(row[i] ?? '', tty))))
  const cells = rows.map((row) =>
    headers.map((_, i) => {
      const cell = row[i] ?? ''
      return clean(times[i] && isTime(cell) ? cell.value : shown(cell, tty))
    }),
  )
  if (!tty) return [headers, ...cells].map((row) => shownColumns.map((i) => row[i]).join('\t')).join('\n')
  const labels = headers.map((header, i) => (times[i] ? `${header} (${TIME_ZONE})` : header))
  // one pass per column, not Math.max(...cells): a spread of 150,000 rows overflows the stack
  const natural = labels.map((label) => displayWidth(label))
  for (const row of cells) row.forEach((cell, i) => (natural[i] = Math.max(natural[i], displayWidth(cell))))
  const wraps = new Set((options.wrap ?? []).map((name) => headers.indexOf(name)).filter((i) => i !== -1))
  let widths = [...natural]
  let below: number[] = []
  const width = options.width ?? terminalWidth()
  if (!options.wide) {
    const candidates = shownColumns
    const fitted = fit(headers, labels, natural, candidates, width, options.columns ? undefined : options.importance, wraps)
    shownColumns = fitted.shown
    widths = fitted.widths
    below = fitted.below
    // chosen columns too (--columns) can be too many for the width: never left out silently
    const hidden = candidates.filter((i) => !shownColumns.includes(i) && !below.includes(i)).map((i) => headers[i])
    if (hidden.length) options.onHidden?.(hidden)
  } else wraps.clear()
  const lines = (row: string[]): string[] => {
    const parts = shownColumns.map((i) => (wraps.has(i) ? wrapWords(row[i], widths[i]) : [truncate(row[i], widths[i])]))
    const height = Math.max(...parts.map((part) => part.length))
    return Array.from({length: height}, (_, at) => parts.map((part, k) => pad(part[at] ?? '', widths[shownColumns[k]])).join(' '.repeat(GAP)).trimEnd())
  }
  const under = (row: string[]): string[] =>
    below.filter((i) => row[i] !== '').flatMap((i) => wrapWords(`${headers[i]}: ${row[i]}`, Math.max(width - BELOW_INDENT, 1)).map((line) => `${' '.repeat(BELOW_INDENT)}${line}`))
  return [...lines(labels), ...lines(labels.map((_, i) => '─'.repeat(widths[i]))), ...cells.flatMap((row) => [...lines(row), ...under(row)])].join('\n')
}

/** What a column of times holds where there is no time. */
const NO_TIME = new Set(['', '-'])

/** How far a column written under its row is indented, so that it reads as part of the row above. */
const BELOW_INDENT = 4

/**
 * One row of a table printed as its rows come (a stream cannot be measured first): each cell in
 * its column's fixed width, wrapped at spaces, a word longer than its column broken over lines
 * (a number stays whole to copy). The last column's width is what the terminal leaves.
 */
export function fixedRow(cells: string[], widths: number[]): string {
  const parts = cells.map((cell, i) => wrapWords(clean(cell), Math.max(1, widths[i])))
  const height = Math.max(...parts.map((part) => part.length))
  return Array.from({length: height}, (_, at) => parts.map((part, k) => pad(part[at] ?? '', widths[k])).join(' '.repeat(GAP)).trimEnd()).join('\n')
}

function pickColumns(headers: string[], wanted: string[]): number[] {
  const unknown = wanted.filter((name) => !headers.includes(name))
  if (unknown.length) throw new UsageError(`unknown column ${unknown.map((n) => `"${n}"`).join(', ')}; columns: ${headers.join(', ')}`)
  return wanted.map((name) => headers.indexOf(name))
}

/**
 * Picks the columns that fit, most important first, each at least its minimum (short values
 * whole, long ones cut to 12 columns), then gives the room left to the important ones. A
 * wrapping column that cannot be shown whole ends the choice: the room left is its own; one
 * that cannot have even its minimum goes under the row.
 */
function fit(
  headers: string[],
  labels: string[],
  natural: number[],
  candidates: number[],
  width: number,
  importance: string[] | undefined,
  wraps: Set<number>,
): {shown: number[]; widths: number[]; below: number[]} {
  const rank = (i: number) => {
    const at = importance?.indexOf(headers[i]) ?? -1
    return at === -1 ? (importance?.length ?? 0) + i : at
  }
  const byImportance = [...candidates].sort((a, b) => rank(a) - rank(b))
  const minimum = natural.map((w, i) => (w <= WHOLE ? w : Math.max(displayWidth(labels[i]), 12)))
  const chosen: number[] = []
  const below: number[] = []
  let used = 0
  for (const i of byImportance) {
    const gap = chosen.length ? GAP : 0
    if (used + minimum[i] + gap > width) {
      if (wraps.has(i) && chosen.length) below.push(i)
      continue
    }
    chosen.push(i)
    // a wrapping column is whole if it fits (less important columns must not squeeze it),
    // else it takes all the room left
    const whole = wraps.has(i) && used + gap + natural[i] <= width
    if (whole) minimum[i] = natural[i]
    used += minimum[i] + gap
    if (wraps.has(i) && !whole) break
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
  return {shown: candidates.filter((i) => chosen.includes(i)), widths, below: candidates.filter((i) => below.includes(i))}
}
