// What a batch gives back: its exit code, the result CSV (each row's latest result from the
// journal) and the dry run's plan CSV.
import {closeSync, createReadStream, openSync, readSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {EXIT_LOCAL_WRITE, writeProblem} from '../../errors.js'
import {writeCsv} from '../files/csv-writer.js'
import type {StopReason} from '../files/walk.js'
import {readRows} from '../files/reader.js'
import {derivedBizTransferNo, rowFields} from './file.js'
import {openJournal, type JournalEntry, type RowReport, type RowResult, type Tally} from './journal.js'

/** The columns of the --out result CSV (named in the command's help). */
export const RESULT_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'outcome', 'transferNo', 'code', 'message']

/** The documented exit code of a batch: 0 all succeeded, 74 the result CSV could not be written, 4 unreachable, 5 some failed, 6 some still processing. */
export function batchExitCode(tally: Tally & {stopped?: StopReason; notSent?: number}): number {
  if (tally.unwritten) return EXIT_LOCAL_WRITE
  if (tally.stopped === 'unreachable') return 4
  if (tally.counts.fail + tally.counts.unknown + (tally.notSent ?? 0) > 0) return 5
  if (tally.counts.processing > 0) return 6
  return 0
}

/**
 * Writes the result CSV from the journal; when the file system refuses it (a full disk, its
 * folder gone), says why instead of throwing: every outcome is in the journal, which notes the
 * loss, so that a run of the file again offers to write the results, not to pay again.
 */
export async function writeResults(journal: string, rows: number, unknownRows: RowResult[], outFile: string, source?: BatchSource): Promise<Tally['unwritten']> {
  let unwritten: Tally['unwritten']
  try {
    await writeResultCsv(journal, rows, unknownRows, outFile, source)
  } catch (error) {
    if (!(error as NodeJS.ErrnoException).code) throw error
    unwritten = {file: outFile, problem: writeProblem(error)}
  }
  const log = openJournal(journal)
  try {
    log.write({type: 'results', file: outFile, written: !unwritten, at: new Date().toISOString()})
  } catch {
    // the disk that refused the results may refuse this line too: the exit code says it all the same
  } finally {
    log.close()
  }
  return unwritten
}

/** The batch file the journal speaks of (checked to be that file), for the rows it never sent. */
export interface BatchSource {
  file: string
  defaults: Record<string, unknown>
  fileSha256: string
  runId?: string
}

/** What a row's latest line in the journal is. */
const NONE = 0
const RESULT = 1
const UNSENT = 2

/**
 * The result CSV, in file order, one line per row of the file: each row's latest result from the
 * journal, its unknown outcome, or "not sent" (from the journal, or, for rows the run never
 * reached, from the batch file when it is at hand). The journal is in completion order, so a first
 * pass notes where each row's latest line is (13 bytes a row), and a second reads them back by row.
 */
async function writeResultCsv(journal: string, rows: number, unknownRows: RowResult[], outFile: string, source?: BatchSource): Promise<void> {
  const offsets = new Float64Array(rows).fill(-1)
  const lengths = new Uint32Array(rows)
  const kinds = new Uint8Array(rows)
  let position = 0
  for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
    const length = Buffer.byteLength(line)
    try {
      const entry = JSON.parse(line) as JournalEntry
      if ((entry.type === 'result' || entry.type === 'unsent') && entry.index >= 0 && entry.index < rows) {
        offsets[entry.index] = position
        lengths[entry.index] = length
        kinds[entry.index] = entry.type === 'result' ? RESULT : UNSENT
      } else if (entry.type === 'sending' && kinds[entry.index] === UNSENT) {
        // sent by a later run: its outcome is that run's (unknown until a result says)
        offsets[entry.index] = -1
        kinds[entry.index] = NONE
      }
    } catch {
      // a torn line: that row is unknown
    }
    position += length + 1
  }
  const unknown = [...unknownRows].sort((a, b) => a.index - b.index)
  const fd = openSync(journal, 'r')
  try {
    const lines = new LineReader(fd)
    let next = 0
    /** Row `index`'s line, or undefined when the journal knows nothing of it. */
    const known = (index: number): object | undefined => {
      while (next < unknown.length && unknown[next].index < index) next++
      if (offsets[index] >= 0) return JSON.parse(lines.read(offsets[index], lengths[index])) as RowReport
      if (unknown[next]?.index === index) return unknown[next]
      return undefined
    }
    const fromJournal = function* () {
      for (let index = 0; index < rows; index++) {
        const row = known(index)
        if (row) yield row
      }
    }
    const fromFile = async function* ({file, defaults, fileSha256, runId}: BatchSource) {
      for await (const batch of readRows(file)) for (const item of batch) {
        if (!('record' in item) || item.index >= rows) continue
        const row = known(item.index)
        if (row) {
          yield row
          continue
        }
        const {fields} = rowFields(item.record, defaults)
        const bizTransferNo = String(fields.bizTransferNo ?? derivedBizTransferNo(fileSha256, item.index, runId))
        yield {line: item.line, bizTransferNo, channel: String(fields.channel), amount: Number(fields.amount), outcome: 'not sent', message: 'not sent: the run stopped before this row'}
      }
    }
    await writeCsv(outFile, RESULT_COLUMNS, source ? fromFile(source) : fromJournal())
  } finally {
    closeSync(fd)
  }
}

/** Lines read back by offset, through a window: results lie mostly in row order, so most reads are in it. */
class LineReader {
  private window = Buffer.alloc(256 * 1024)
  private start = 0
  private end = 0

  constructor(private readonly fd: number) {}

  read(offset: number, length: number): string {
    if (offset < this.start || offset + length > this.end) {
      if (length > this.window.length) this.window = Buffer.alloc(length)
      this.start = offset
      this.end = offset + readSync(this.fd, this.window, 0, this.window.length, offset)
    }
    return this.window.toString('utf8', offset - this.start, offset - this.start + length)
  }
}
