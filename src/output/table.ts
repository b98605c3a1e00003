// Tables: aligned on a terminal, tab-separated rows when piped (for cut, awk, spreadsheets).
import Table from 'cli-table3'

// Control characters (escape sequences from an unverified callback, say) never reach the
// terminal; line breaks survive only inside terminal tables, where cells wrap.
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g
const safe = (text: string) => text.replace(CONTROL, (c) => (c === '\t' ? ' ' : ''))
const clean = (text: string) => safe(text.replace(/[\t\n\r]/g, ' '))

/** One record as label/value lines. */
export function renderRecord(rows: [label: string, value: string][], tty: boolean): string {
  const present = rows.filter(([, value]) => value !== '')
  if (!tty) return present.map(([label, value]) => `${label}\t${clean(value)}`).join('\n')
  const table = new Table({style: {head: [], border: []}, wordWrap: true, colWidths: [null, Math.max(40, (process.stdout.columns ?? 100) - 28)]})
  for (const [label, value] of present) table.push([safe(label), safe(value)])
  return table.toString()
}

/** Many records as columns. */
export function renderRows(headers: string[], rows: string[][], tty: boolean): string {
  if (!tty) return [headers, ...rows].map((row) => row.map(clean).join('\t')).join('\n')
  const table = new Table({head: headers, style: {head: [], border: []}})
  for (const row of rows) table.push(row.map(safe))
  return table.toString()
}
