// A file of rows that moves money or is checked against money (a batch of payouts, a ledger):
// CSV with a header (a BOM, CRLF or LF, comma, semicolon or tab) or JSON lines, read as a stream
// of rows with their line numbers, so memory stays flat however long the file. What the columns
// mean is the consumer's: this module knows only rows, lines and the names of columns.
import type {createHash} from 'node:crypto'
import {accessSync, closeSync, constants, createReadStream, existsSync, openSync, readSync, statSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {readProblem, UsageError} from '../../errors.js'
import {closest} from '../../protocol/closest.js'

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

/** The CSV header line, and the separator it uses (comma, else semicolon or tab). */
export function readHeader(file: string): Header {
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const length = readSync(fd, buffer, 0, buffer.length, 0)
    const text = buffer.subarray(0, length).toString('utf8').replace(/^\uFEFF/, '')
    const line = text.split(/\r?\n/, 1)[0]
    const count = (c: string) => line.split(c).length - 1
    const delimiter = count(',') > 0 ? ',' : count(';') >= count('\t') && count(';') > 0 ? ';' : count('\t') > 0 ? '\t' : ','
    return {delimiter, columns: line.split(delimiter).map((c) => c.trim().replace(/^"(.*)"$/, '$1'))}
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

/**
 * Rows of the file with their line numbers, in batches (the rows parsed from one read of the
 * file, a few hundred): consumers check a batch without waiting between rows, so a row's objects
 * die young and memory stays flat. The file's SHA-256 goes into `hash` as it is read. A line that
 * is no row (bad JSON, bad CSV) comes as a RowProblem in its place.
 */
export async function* readRows(file: string, hash?: ReturnType<typeof createHash>): AsyncGenerator<(FileRow | RowProblem)[]> {
  const {parse} = await import('csv-parse')
  // Set up every consumer in the same tick: a 'data' listener starts the flow at once.
  const stream = createReadStream(file, {highWaterMark: 16 * 1024})
  if (hash) stream.on('data', (chunk) => hash.update(chunk))
  let index = 0
  if (isJsonLines(file)) {
    let line = 0
    for await (const text of createInterface({input: stream, crlfDelay: Infinity})) {
      line++
      if (!text.trim()) continue
      let record: unknown
      try {
        record = JSON.parse(text)
      } catch (error) {
        yield [{line, message: `not JSON: ${(error as Error).message}`}]
        continue
      }
      if (record === null || typeof record !== 'object' || Array.isArray(record)) yield [{line, message: 'not a JSON object'}]
      else yield [{index: index++, line, record: record as Record<string, unknown>}]
    }
    return
  }
  const {delimiter} = readHeader(file)
  const parser = parse({columns: true, delimiter, skip_empty_lines: true, trim: true, bom: true})
  // Each record with its line, from the parser's count as it hands the record on. (Its `info`
  // option gives the line too, but builds an object of a dozen fields per row: most of the cost
  // of reading a file, and what filled the heap on long ones.)
  const push = parser.push.bind(parser)
  parser.push = (record: Record<string, string> | null) => push(record === null ? null : {record, line: parser.info.lines})
  stream.pipe(parser)
  type Parsed = {record: Record<string, string>; line: number}
  try {
    for await (const first of parser as AsyncIterable<Parsed>) {
      // the rest of what this read parsed is there already
      const batch: FileRow[] = [{index: index++, line: first.line, record: first.record}]
      for (let next: Parsed | null; (next = parser.read() as Parsed | null) !== null; ) batch.push({index: index++, line: next.line, record: next.record})
      yield batch
    }
  } catch (error) {
    const lines = (error as {lines?: number}).lines
    yield [{line: lines ?? 0, message: `not valid CSV: ${(error as Error).message}`}]
  }
}
