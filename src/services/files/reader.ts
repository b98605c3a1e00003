// A file of rows that moves money or is checked against money (a batch of payouts, a ledger):
// CSV with a header (a BOM, CRLF or LF, comma, semicolon or tab) or JSON lines, read as a stream
// of rows with their line numbers, so memory stays flat however long the file. What the columns
// mean is the consumer's: this module knows only rows, lines and the names of columns.
import type {createHash} from 'node:crypto'
import {accessSync, closeSync, constants, createReadStream, existsSync, openSync, readSync, statSync} from 'node:fs'
import {StringDecoder} from 'node:string_decoder'
import {readProblem, UsageError} from '../../errors.js'
import {closest} from '../../protocol/closest.js'
import {isLosslessNumber, JsonRepeatedKeyError, parseJson, toPlain, type JsonValue} from '../../protocol/json.js'
import {CsvError, CsvSplitter, LineSplitter, type CsvRecord} from './split.js'

/** Something wrong with a row, or with the file (line 0) or its header (line 1). */
export interface RowProblem {
  /** 0: the file as a whole. */
  line: number
  field?: string
  message: string
}

/** A row as read: its place among the rows (from 0), the line it is on, its values by column or key. */
export interface FileRow {
  index: number
  line: number
  record: Record<string, unknown>
}

export interface Header {
  delimiter: string
  columns: string[]
}

export const isJsonLines = (file: string) => /\.(jsonl|ndjson)$/i.test(file)

/** The file exists, is a file and can be read; `name` is how the command names it (FILE, --receivers-file). */
export function checkReadable(file: string, name = 'FILE'): void {
  if (!existsSync(file)) throw new UsageError(`${name}: ${file} does not exist`)
  // checked up front: a stream error would not reach the line reader or the CSV parser
  try {
    if (!statSync(file).isFile()) throw new UsageError(`${name}: ${file} is not a file`)
    accessSync(file, constants.R_OK)
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`${name}: cannot read ${file}: ${readProblem(error)}`)
  }
}

/** The CSV header, and the separator it uses (comma, else semicolon or tab). */
export function readHeader(file: string): Header {
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    const text = buffer.subarray(0, length).toString('utf8').replace(/^\uFEFF/, '')
    const line = text.split(/\r?\n/, 1)[0]
    const count = (c: string) => line.split(c).length - 1
    const delimiter = count(',') > 0 ? ',' : count(';') >= count('\t') && count(';') > 0 ? ';' : count('\t') > 0 ? '\t' : ','
    // the header as the rows will be read (a quoted name may hold the separator)
    let columns: string[]
    try {
      const splitter = new CsvSplitter(delimiter)
      columns = (splitter.push(text)[0] ?? (length < buffer.length ? splitter.end()[0] : undefined))?.cells ?? line.split(delimiter)
    } catch {
      columns = line.split(delimiter).map((c) => c.trim())
    }
    return {delimiter, columns}
  } finally {
    closeSync(fd)
  }
}

/** A header that is one column none of the `known` ones, with a character no column name has: the file uses another separator. */
export function separatorProblem(header: Header, known: readonly string[]): string | undefined {
  const [first] = header.columns
  if (header.columns.length !== 1 || known.includes(first) || !/[^A-Za-z0-9_]/.test(first)) return undefined
  return `the header has a single column "${first}": the file is not comma-separated (use commas; semicolons and tabs are also recognised)`
}

/** "unknown column", with the closest of the `known` columns when one is near. */
export function unknownColumn(column: string, known: readonly string[]): string {
  const near = closest(column, known, {ignoreCase: true})
  return near ? `unknown column: did you mean ${near}?` : `unknown column (columns: ${known.join(', ')})`
}

/** The problem of a row whose JSON has a key twice (with two values), named by the key. */
function jsonProblem(line: number, error: unknown): RowProblem {
  if (error instanceof JsonRepeatedKeyError) return {line, field: error.key, message: 'the key is repeated with another value: which one is meant is not clear'}
  return {line, message: `not JSON: ${(error as Error).message}`}
}

/** A record by column name; "__proto__" stays a column (assigned, it would set the prototype). */
function byColumn(columns: string[], cells: string[]): Record<string, string> {
  const record: Record<string, string> = {}
  for (let i = 0; i < columns.length; i++) {
    if (columns[i] === '__proto__') Object.defineProperty(record, '__proto__', {value: cells[i], enumerable: true, writable: true, configurable: true})
    else record[columns[i]] = cells[i]
  }
  return record
}

/** Columns named twice: the header's problem, on line 1 (a row would hold two values for one name). */
function repeatedColumns(columns: string[]): RowProblem[] {
  const seen = new Map<string, number>()
  const problems: RowProblem[] = []
  columns.forEach((column, i) => {
    const first = seen.get(column)
    if (first === undefined) seen.set(column, i + 1)
    else problems.push({line: 1, field: column, message: `the column is repeated (columns ${first} and ${i + 1}): which one is meant is not clear`})
  })
  return problems
}

/**
 * Rows of the file with their line numbers (a row's first line), in batches (the rows of one read
 * of the file, a few hundred): consumers check a batch without waiting between rows, so a
 * row's objects die young and memory stays flat. The file's SHA-256 goes into `hash` as it is
 * read. Read as strictly as `--data`: a JSON line by the same parser (a key repeated with
 * another value, numbers kept exact, nesting and size bounded), a CSV header naming a column
 * twice refused. What is no row comes as a RowProblem in its place: a line that is not JSON, a
 * CSV row with more or fewer cells than the header; a CSV file that cannot be read on (an
 * unclosed quote) or a repeated column ends the rows there.
 */
export async function* readRows(file: string, hash?: ReturnType<typeof createHash>): AsyncGenerator<(FileRow | RowProblem)[]> {
  const jsonLines = isJsonLines(file)
  const splitter = jsonLines ? new LineSplitter() : new CsvSplitter(readHeader(file).delimiter)
  const decoder = new StringDecoder('utf8')
  let columns: string[] | undefined
  let index = 0
  const rows = (records: CsvRecord[]): (FileRow | RowProblem)[] => {
    const batch: (FileRow | RowProblem)[] = []
    for (const {cells, line} of records) {
      if (jsonLines) {
        let value: JsonValue
        try {
          value = parseJson(cells[0])
        } catch (error) {
          batch.push(jsonProblem(line, error))
          continue
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value) || isLosslessNumber(value)) batch.push({line, message: 'not a JSON object'})
        else batch.push({index: index++, line, record: toPlain(value) as Record<string, unknown>})
      } else if (columns === undefined) {
        columns = cells
        const repeated = repeatedColumns(columns)
        if (repeated.length > 0) throw new StopReading(repeated)
      } else if (cells.length !== columns.length) {
        batch.push({line, message: `not valid CSV: ${cells.length} cells, but the header has ${columns.length} columns`})
      } else batch.push({index: index++, line, record: byColumn(columns, cells)})
    }
    return batch
  }
  try {
    // 16 KiB reads: as fast as 64 KiB ones here, and a 1,000,000-row read peaks 15 MB lower
    for await (const chunk of createReadStream(file, {highWaterMark: 16 * 1024})) {
      hash?.update(chunk as Buffer)
      const batch = rows(splitter.push(decoder.write(chunk as Buffer)))
      if (batch.length > 0) yield batch
    }
    const batch = rows(splitter.push(decoder.end()).concat(splitter.end()))
    if (batch.length > 0) yield batch
  } catch (error) {
    if (error instanceof StopReading) yield error.problems
    else if (error instanceof CsvError) yield [{line: error.line, message: `not valid ${jsonLines ? 'JSON lines' : 'CSV'}: ${error.message}`}]
    else throw error
  }
}

/** The end of a file's rows: what makes reading on pointless. */
class StopReading extends Error {
  constructor(readonly problems: RowProblem[]) {
    super('stop reading')
  }
}
