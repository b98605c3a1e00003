// The one CSV writer of the tool: every file of rows it writes (a batch's results and plan, a
// reconciliation's differences) goes through here.
import {createWriteStream} from 'node:fs'

/** Streams rows into a CSV file under a header of `columns`, with backpressure. */
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
