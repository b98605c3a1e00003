// `reconcile`: the differences as they are found (on a terminal a table of fixed columns that fits
// its width, 80 at least; piped, a header line and one tab-separated line of raw values each),
// then the summary (rows and money on each side, by class), and the --json document, written a
// difference at a time from the journal, so none is held.
import type {Difference} from '../services/reconcile/compare.js'
import type {LedgerPlan} from '../services/reconcile/check.js'
import type {Summary} from '../services/reconcile/run.js'
import {money, type Cell} from './format.js'
import {fixedRow, renderRows, terminalWidth} from './table.js'
import {stringifyJson} from '../protocol/json.js'
import {centsToYuan} from '../protocol/money.js'
import {counted} from '../protocol/plural.js'

/** The piped columns, raw values (cents, status words), as --out writes them. */
const PIPED_COLUMNS = ['line', 'kind', 'number', 'platformNo', 'difference', 'ledger', 'platform', 'code', 'message'] as const
const KIND_WORDS = {pay: 'payment', refund: 'refund', transfer: 'transfer'} as const

/** Columns of the terminal's table: line, the record, the difference, and what the platform says (the rest of the width). */
const TERMINAL_HEADERS = ['line', 'record', 'difference', 'detail']
const FIXED_WIDTHS = [5, 26, 19]

/** The lines a difference prints as; `first`: the header goes before it. */
export function differenceLines(difference: Difference, tty: boolean, first: boolean): string {
  if (!tty) {
    const cells = PIPED_COLUMNS.map((column) => String(difference[column] ?? ''))
    return [...(first ? [PIPED_COLUMNS.join('\t')] : []), cells.map((cell) => cell.replace(/[\t\r\n]+/g, ' ')).join('\t')].join('\n')
  }
  const widths = [...FIXED_WIDTHS, Math.max(24, terminalWidth() - FIXED_WIDTHS.reduce((a, b) => a + b + 2, 0))]
  const row = fixedRow([difference.line === undefined ? '-' : String(difference.line), `${KIND_WORDS[difference.kind]} ${difference.number}`, difference.difference, difference.message], widths)
  if (!first) return row
  return [fixedRow(TERMINAL_HEADERS, widths), fixedRow(widths.map((w) => '─'.repeat(w)), widths), row].join('\n')
}

const both = (cents: number): Cell => money(cents)

/** The summary: rows, matched and each class found, with the money on each side (cents, and yuan on a terminal). */
export function summaryTable(summary: Summary, tty: boolean): string {
  const rows: Cell[][] = [['matched', String(summary.matched.rows), both(summary.matched.cents), both(summary.matched.cents)]]
  // the classes in the order the summary keeps them (the order of DIFFERENCE_CLASSES)
  for (const [name, sum] of Object.entries(summary.classes)) if (sum.rows) rows.push([name, String(sum.rows), both(sum.ledgerCents), both(sum.platformCents)])
  return renderRows(['', 'rows', 'ledger', 'platform'], rows, tty)
}

/** The summary's first line: how many rows, compared by whom, matched and differing. */
export function summaryLine(summary: Summary, name: string): string {
  const differing = Object.entries(summary.classes).reduce((sum, [name, {rows}]) => sum + (name === 'missing in ledger' ? 0 : rows), 0)
  const earlier = summary.previouslyDone ? ` (${summary.previouslyDone} by an earlier run)` : ''
  const missing = summary.classes['missing in ledger'].rows
  const window = summary.window ? `; ${missing ? counted(missing, 'refund') : 'no refund'} of ${summary.window.start} to ${summary.window.end} missing in the ledger${summary.window.listed ? '' : ' so far (not listed to the end)'}` : ''
  return `${name}: ${summary.compared} of ${counted(summary.plan.rows, 'row')} compared${earlier}, ${summary.matched.rows} matched, ${differing} differ${window}`
}

/** A dry run's account of the ledger: rows and money by kind. */
export function planLines(plan: LedgerPlan, name: string): string {
  const kinds = (['pay', 'refund', 'transfer'] as const).filter((kind) => plan.byKind[kind].rows).map((kind) => `${counted(plan.byKind[kind].rows, KIND_WORDS[kind])} (¥${centsToYuan(plan.byKind[kind].cents)})`)
  const repeated = plan.repeated ? `; ${counted(plan.repeated, 'row')} repeat${plan.repeated === 1 ? 's' : ''} an earlier row's number` : ''
  return `${name}: ${counted(plan.rows, 'row')}, ${kinds.join(', ')}${repeated}; every row is valid, nothing was asked`
}

/**
 * The --json document, a piece at a time: `{ok, exitCode, data: {...summary, differences: [...]}, warnings}`,
 * the differences streamed from the journal.
 */
export async function writeJsonDocument(write: (text: string) => void, summary: Summary, exitCode: number, differences: AsyncIterable<Difference>, warnings: string[]): Promise<void> {
  const head = stringifyJson({ok: exitCode === 0, exitCode, data: {...summary, differences: []}, warnings}, 2)
  // the document up to the empty list, the differences one a line, then the rest
  const at = head.lastIndexOf('"differences": []') + '"differences": ['.length
  write(head.slice(0, at))
  // each difference on a line of its own, the comma after it once the next one comes
  let previous: string | undefined
  for await (const difference of differences) {
    if (previous !== undefined) write(`      ${previous},`)
    previous = stringifyJson(difference)
  }
  if (previous !== undefined) write(`      ${previous}`)
  write(`    ${head.slice(at)}`)
}

/** What the exit code means for this run, and how to go on. */
export function closingNote(summary: Summary, exitCode: number, interrupted: NodeJS.Signals | undefined, resume: string): string | undefined {
  const left = counted(summary.notCompared, 'row')
  if (interrupted) return `interrupted by ${interrupted}: ${left} not compared; go on with: ${resume}`
  if (exitCode === 4 && summary.notCompared === 0) return `the platform did not answer: the refunds of the window were not listed to the end; once it answers, go on with: ${resume}`
  if (exitCode === 4) return `the platform did not answer: ${summary.compared} of ${counted(summary.plan.rows, 'row')} compared, ${left} not; once it answers, go on with: ${resume}`
  if (exitCode === 3) return `${counted(summary.classes.unverified.rows, 'answer')} did not verify: those rows are unverified, never a match`
  const see = summary.outFile ? ` (every one in ${summary.outFile})` : ''
  if (exitCode === 5) return `the ledger and the platform differ${see}`
  return undefined
}
