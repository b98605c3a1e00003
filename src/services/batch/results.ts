// What a batch gives back: its exit code, the result CSV (each row's latest result from the
// journal) and the dry run's plan CSV.
import {closeSync, createReadStream, openSync, readSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {EXIT_LOCAL_WRITE, writeProblem} from '../../errors.js'
import {writeCsv} from '../files/csv-writer.js'
import type {StopReason} from '../files/walk.js'
import {openJournal, type JournalEntry, type RowResult, type Tally} from './journal.js'

/** The columns of the --out result CSV (named in the command's help). */
export const RESULT_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'outcome', 'transferNo', 'code', 'message']
/** The columns of the --dry-run plan CSV. */
export const PLAN_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'payee']

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
export async function writeResults(journal: string, rows: number, unknownRows: RowResult[], outFile: string): Promise<Tally['unwritten']> {
  let unwritten: Tally['unwritten']
  try {
    await writeResultCsv(journal, rows, unknownRows, outFile)
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

/**
 * The result CSV, in file order: each row's latest result from the journal, or its unknown
 * outcome. The journal is in completion order, so a first pass notes where each row's latest
 * result line is (12 bytes a row), and a second reads them back by row.
 */
async function writeResultCsv(journal: string, rows: number, unknownRows: RowResult[], outFile: string): Promise<void> {
  const offsets = new Float64Array(rows).fill(-1)
  const lengths = new Uint32Array(rows)
  let position = 0
  for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
    const length = Buffer.byteLength(line)
    try {
      const entry = JSON.parse(line) as JournalEntry
      if (entry.type === 'result' && entry.index >= 0 && entry.index < rows) {
        offsets[entry.index] = position
        lengths[entry.index] = length
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
    await writeCsv(
      outFile,
      RESULT_COLUMNS,
      (function* () {
        let next = 0
        for (let index = 0; index < rows; index++) {
          while (next < unknown.length && unknown[next].index < index) next++
          if (offsets[index] >= 0) yield JSON.parse(lines.read(offsets[index], lengths[index])) as RowResult
          else if (unknown[next]?.index === index) yield unknown[next]
        }
      })(),
    )
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
