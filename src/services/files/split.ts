// Text split into records as it streams in, each with the line it starts on: CSV as RFC 4180
// writes it (a cell in double quotes may hold the separator, line breaks and doubled quotes), or
// JSON lines. A line break is LF, CRLF or a lone CR in CSV (inside a quoted cell as between
// records), LF or CRLF in JSON lines, and counts as one line. Written here rather than taken from
// csv-parse: its line numbers are an internal that counts a CRLF inside a quoted cell twice, and
// this one pass is several times faster.

/** The longest record read, in characters: far beyond any row of a payout or a ledger, and bounded. */
export const MAX_RECORD_CHARS = 1024 * 1024

/** A record that is not CSV: `line` is where the record starts. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message)
  }
}

export interface CsvRecord {
  cells: string[]
  /** The line the record starts on (from 1). */
  line: number
}

const QUOTE = 0x22
const CR = 0x0d
const LF = 0x0a

/** Lines a piece of a quoted cell spans beyond its first: LF, CRLF and a lone CR count one each. */
function lineBreaks(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === LF || (code === CR && text.charCodeAt(i + 1) !== LF)) count++
  }
  return count
}

/**
 * Splits CSV text into records. Feed it the text in pieces (`push`), then `end()`: a record cut
 * by a piece's end waits for the next one. Cells are trimmed of spaces and tabs around them
 * (outside the quotes); a record of one empty cell (an empty line) is skipped. Linear in the
 * text: a record is parsed again only once the text held for it has doubled.
 */
export class CsvSplitter {
  private held = ''
  /** How long `held` must grow before a cut record is parsed again. */
  private retryAt = 0
  private line = 1
  private first = true
  private readonly unquoted: RegExp
  private readonly separator: number
  /** An error found after some good records: thrown at the next call, once those are handed on. */
  private failed: CsvError | undefined

  constructor(delimiter: string) {
    this.separator = delimiter.charCodeAt(0)
    const escaped = delimiter === '\t' ? '\\t' : delimiter.replace(/[\\\]^-]/g, '\\$&')
    // an unquoted cell runs to the separator or the line's end (a quote in it is an error)
    this.unquoted = new RegExp(`[^${escaped}\\r\\n"]*`, 'y')
  }

  /** The complete records in the text so far. */
  push(text: string): CsvRecord[] {
    if (this.failed) throw this.failed
    if (this.first && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    if (text) this.first = false
    this.held += text
    if (this.held.length < this.retryAt && this.held.length <= MAX_RECORD_CHARS) return []
    return this.split(false)
  }

  /** The records left at the end of the text. */
  end(): CsvRecord[] {
    if (this.failed) throw this.failed
    return this.split(true)
  }

  private split(end: boolean): CsvRecord[] {
    const text = this.held
    const records: CsvRecord[] = []
    let at = 0
    while (at < text.length) {
      const startLine = this.line
      let record: ReturnType<typeof this.record>
      try {
        record = this.record(text, at, end)
      } catch (error) {
        if (!(error instanceof CsvError) || records.length === 0) throw error
        this.failed = error
        return records
      }
      if (record === undefined) {
        // cut by the end of what arrived: kept, and parsed again once twice as much is held
        this.line = startLine
        if (text.length - at > MAX_RECORD_CHARS) throw new CsvError(startLine, `a record over ${MAX_RECORD_CHARS} characters (an unclosed quote?)`)
        this.held = text.slice(at)
        this.retryAt = this.held.length * 2
        return records
      }
      // a whole record past the bound too, not only one still cut by a piece's end
      if (record.next - at > MAX_RECORD_CHARS) {
        const error = new CsvError(startLine, `a record over ${MAX_RECORD_CHARS} characters`)
        if (records.length === 0) throw error
        this.failed = error
        return records
      }
      at = record.next
      if (record.cells.length === 1 && record.cells[0] === '' && !record.quoted) continue
      records.push({cells: record.cells, line: startLine})
    }
    this.held = ''
    this.retryAt = 0
    return records
  }

  /** One record from `at`; undefined when the text ends before the record does (and more may come). */
  private record(text: string, at: number, end: boolean): {cells: string[]; next: number; quoted: boolean} | undefined {
    const cells: string[] = []
    let quoted = false
    for (;;) {
      at = skipBlanks(text, at, this.separator)
      let cell: string
      if (text.charCodeAt(at) === QUOTE) {
        quoted = true
        cell = ''
        const startLine = this.line
        for (at++; ; ) {
          const close = text.indexOf('"', at)
          if (close === -1) {
            if (!end) return undefined
            throw new CsvError(startLine, 'a quoted cell is not closed before the end of the file')
          }
          const piece = text.slice(at, close)
          this.line += lineBreaks(piece)
          cell += piece
          if (close + 1 === text.length && !end) return undefined
          if (text.charCodeAt(close + 1) !== QUOTE) {
            at = skipBlanks(text, close + 1, this.separator)
            break
          }
          cell += '"'
          at = close + 2
        }
        const next = text.charCodeAt(at)
        if (at < text.length && next !== this.separator && next !== CR && next !== LF) {
          throw new CsvError(this.line, `${JSON.stringify(text[at])} after a quoted cell's closing quote: a quote inside a quoted cell is written twice ("")`)
        }
      } else {
        this.unquoted.lastIndex = at
        this.unquoted.test(text)
        const stop = this.unquoted.lastIndex
        if (text.charCodeAt(stop) === QUOTE) throw new CsvError(this.line, `a quote inside an unquoted cell (${JSON.stringify(text.slice(at, Math.min(stop + 1, at + 40)))}): quote the whole cell, and write a quote inside it twice ("")`)
        let last = stop
        while (last > at && isBlank(text.charCodeAt(last - 1), this.separator)) last--
        cell = text.slice(at, last)
        at = stop
      }
      cells.push(cell)
      const code = text.charCodeAt(at)
      if (code === this.separator) {
        at++
        continue
      }
      if (at >= text.length) return end ? {cells, next: at, quoted} : undefined
      // a CR at the end of what arrived may be the first half of a CRLF
      if (code === CR && at + 1 === text.length && !end) return undefined
      this.line++
      return {cells, next: at + (code === CR && text.charCodeAt(at + 1) === LF ? 2 : 1), quoted}
    }
  }
}

/**
 * JSON lines: a record per line (blank lines skipped), its text without the line break. A line
 * cut by a piece's end is kept as its pieces, joined once its end arrives: linear however many
 * pieces a long line comes in.
 */
export class LineSplitter {
  private pieces: string[] = []
  private heldLength = 0
  private line = 1
  private first = true

  push(text: string): CsvRecord[] {
    if (this.first && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    if (text) this.first = false
    const records: CsvRecord[] = []
    let at = text.indexOf('\n')
    if (at === -1) {
      this.pieces.push(text)
      this.heldLength += text.length
      if (this.heldLength > MAX_RECORD_CHARS) throw new CsvError(this.line, `a line over ${MAX_RECORD_CHARS} characters`)
      return records
    }
    this.take(this.pieces.join('') + text.slice(0, at), records)
    let start = at + 1
    for (at = text.indexOf('\n', start); at !== -1; at = text.indexOf('\n', start)) {
      this.take(text.slice(start, at), records)
      start = at + 1
    }
    const rest = text.slice(start)
    this.pieces = rest ? [rest] : []
    this.heldLength = rest.length
    if (this.heldLength > MAX_RECORD_CHARS) throw new CsvError(this.line, `a line over ${MAX_RECORD_CHARS} characters`)
    return records
  }

  end(): CsvRecord[] {
    const records: CsvRecord[] = []
    const held = this.pieces.join('')
    if (held) this.take(held, records)
    this.pieces = []
    this.heldLength = 0
    return records
  }

  private take(line: string, records: CsvRecord[]): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (text.length > MAX_RECORD_CHARS) throw new CsvError(this.line, `a line over ${MAX_RECORD_CHARS} characters`)
    if (text.trim()) records.push({cells: [text], line: this.line})
    this.line++
  }
}

/** A space or a tab (a tab is no blank when it separates the cells). */
const isBlank = (code: number, separator: number) => (code === 0x20 || code === 0x09) && code !== separator

/** Past the blanks at `at`. */
function skipBlanks(text: string, at: number, separator: number): number {
  while (isBlank(text.charCodeAt(at), separator)) at++
  return at
}
