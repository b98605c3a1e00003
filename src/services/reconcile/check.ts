// The ledger checked whole before anything is asked of the platform: every bad row reported
// with its line (header problems once, on line 1), the other columns named once, what the
// ledger holds by kind, and its numbers put in a compact set as they are read (a number seen
// twice; for the other direction, the refunds the ledger holds).
import {createHash, type Hash} from 'node:crypto'
import {statSync} from 'node:fs'
import {InterruptedError} from '../../errors.js'
import {counted} from '../../protocol/plural.js'
import {checkReadable, isJsonLines, readHeader, readRows, type RowProblem} from '../files/reader.js'
import {headerOf, ledgerRow, rowKey, type Kind, type LedgerRow} from './ledger.js'
import {NumberSet} from './number-set.js'

/** Other columns named, at most (a JSON-lines file may bring a new key on every line). */
const MOST_IGNORED = 20

/** What a ledger holds, once checked. */
export interface LedgerPlan {
  rows: number
  byKind: Record<Kind, {rows: number; cents: number}>
  /** Payments that give `refunded`: they are compared through the management API. */
  refundedRows: number
  /** Rows whose number an earlier row has. */
  repeated: number
  /** Columns (or JSON keys) that are not the ledger's: ignored. */
  ignoredColumns: string[]
  fileSha256: string
}

export interface CheckedLedger {
  plan: LedgerPlan
  problems: number
  /** Every row's key (rowKey), by hash. */
  numbers: NumberSet
  /** The keys of rows whose number an earlier row has: the walk tells the first from the others. */
  repeatedKeys: Set<string>
}

/** Rows of a checked ledger, in file order, in the reader's batches (rows that are no row dropped). */
export async function* ledgerRows(file: string): AsyncGenerator<LedgerRow[]> {
  for await (const batch of readRows(file)) {
    const rows: LedgerRow[] = []
    for (const item of batch) {
      if (!('record' in item)) continue
      const {row} = ledgerRow(item.record, item.index, item.line)
      if (row) rows.push(row)
    }
    yield rows
  }
}

/** Checks every row; problems are reported as they are found (nothing is kept per row). */
export async function checkLedger(file: string, onProblem: (problem: RowProblem) => void, signal?: AbortSignal): Promise<CheckedLedger> {
  checkReadable(file, 'LEDGER')
  const hash = createHash('sha256')
  const plan: LedgerPlan = {rows: 0, byKind: {pay: {rows: 0, cents: 0}, refund: {rows: 0, cents: 0}, transfer: {rows: 0, cents: 0}}, refundedRows: 0, repeated: 0, ignoredColumns: [], fileSha256: ''}
  let problems = 0
  const report = (problem: RowProblem) => {
    problems++
    onProblem(problem)
  }
  const header = isJsonLines(file) ? undefined : headerOf(readHeader(file))
  for (const problem of header?.problems ?? []) report(problem)
  // a column the header already answered for is not reported again on every row
  const answered = new Set((header?.problems ?? []).map((p) => p.field).filter((field) => field !== undefined))
  const ignored = new Set(header?.ignored ?? [])
  const checked: CheckedLedger = {plan, problems: 0, numbers: new NumberSet(), repeatedKeys: new Set()}
  // the bytes read so far: the set of numbers is sized for the whole file from its first rows
  let bytesRead = 0
  const counting = {update: (chunk: Buffer) => ((bytesRead += chunk.length), hash.update(chunk))} as unknown as Hash
  const fileBytes = statSync(file).size
  for await (const batch of readRows(file, counting)) {
    if (plan.rows === 0) checked.numbers.expect(Math.ceil((batch.length * fileBytes) / Math.max(1, bytesRead)))
    for (const item of batch) {
      if (signal?.aborted) throw new InterruptedError(signal.reason, `interrupted while checking ${file} (${counted(plan.rows, 'row')} read); nothing was asked`)
      if (!('record' in item)) {
        report(item)
        continue
      }
      plan.rows++
      const {row, problems: found, unknown} = ledgerRow(item.record, item.index, item.line)
      for (const key of unknown) if (ignored.size < MOST_IGNORED) ignored.add(key)
      for (const problem of found) {
        if (problem.field !== undefined && answered.has(problem.field)) continue
        // a near miss among a JSON line's keys would repeat on every line: reported once
        if (problem.message.startsWith('unknown column')) answered.add(problem.field!)
        report({line: item.line, ...problem})
      }
      if (row) count(checked, row)
    }
  }
  if (plan.rows === 0 && problems === 0) report({line: 0, message: 'no rows: the file is empty or has only its header'})
  plan.ignoredColumns = [...ignored]
  plan.fileSha256 = hash.digest('hex')
  return {...checked, problems}
}

/** A valid row in the plan and its number in the set (a number seen before: a repeat). */
function count({plan, numbers, repeatedKeys}: CheckedLedger, row: LedgerRow): void {
  plan.byKind[row.kind].rows++
  plan.byKind[row.kind].cents += row.amount
  if (row.refunded !== undefined) plan.refundedRows++
  const key = rowKey(row)
  if (!numbers.add(key)) {
    plan.repeated++
    repeatedKeys.add(key)
  }
}
