// What a batch gives back: its exit code, the result CSV (each row's latest result from the
// journal) and the dry run's plan CSV.
import {createReadStream, createWriteStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {FinishedRows, type JournalEntry, type RowResult, type Tally} from './journal.js'
import type {StopReason} from './settle.js'

/** The columns of the --out result CSV (named in the command's help). */
export const RESULT_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'outcome', 'transferNo', 'code', 'message']
/** The columns of the --dry-run plan CSV. */
export const PLAN_COLUMNS = ['line', 'bizTransferNo', 'channel', 'amount', 'payee']

/** The documented exit code of a batch: 0 all succeeded, 4 unreachable, 5 some failed, 6 some still processing. */
export function batchExitCode(tally: Tally & {stopped?: StopReason; notSent?: number}): number {
  if (tally.stopped === 'unreachable') return 4
  if (tally.counts.fail + tally.counts.unknown + (tally.notSent ?? 0) > 0) return 5
  if (tally.counts.processing > 0) return 6
  return 0
}

/** Streams rows into a CSV file, with backpressure. */
export async function writeCsv(outFile: string, columns: string[], rows: AsyncIterable<object> | Iterable<object>): Promise<void> {
  const {stringify} = await import('csv-stringify')
  const out = stringify({header: true, columns})
  const done = new Promise<void>((resolve, reject) => {
    const file = createWriteStream(outFile)
    out.pipe(file).on('finish', () => resolve()).on('error', reject)
  })
  for await (const row of rows) if (!out.write(row)) await new Promise((resolve) => out.once('drain', resolve))
  out.end()
  await done
}

/** The result CSV: each row's latest result from the journal, then the rows still unknown. */
export async function writeResults(journal: string, unknownRows: RowResult[], outFile: string): Promise<void> {
  // pass 1 finds the rows whose result changed later (processing, then final): few, kept by index
  const latest = new Map<number, RowResult>()
  const seen = new FinishedRows()
  const entries = async function* () {
    for await (const line of createInterface({input: createReadStream(journal), crlfDelay: Infinity})) {
      try {
        const entry = JSON.parse(line) as JournalEntry
        if (entry.type === 'result') yield entry
      } catch {
        // a torn line: that row is unknown
      }
    }
  }
  for await (const entry of entries()) {
    if (!seen.has(entry.index)) seen.add(entry.index)
    else latest.set(entry.index, entry)
  }
  const written = new FinishedRows()
  await writeCsv(
    outFile,
    RESULT_COLUMNS,
    (async function* () {
      for await (const entry of entries()) {
        if (written.has(entry.index)) continue
        written.add(entry.index)
        yield latest.get(entry.index) ?? entry
      }
      yield* unknownRows
    })(),
  )
}
