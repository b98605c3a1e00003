// The merchant's ledger reconciled with the platform's records, for finance (`unipay reconcile`):
// - the ledger is read by the shared file reader (../files/reader.ts) as `transfer batch` reads
//   its file, and every row is checked before anything is asked (all bad rows reported, by line);
// - each row is asked of the platform with bounded concurrency (../files/walk.ts) through the
//   query services, every answer verified, and what differs is classed;
// - a journal of its own records each row compared, so an interrupted run resumes without asking
//   again, and holds the differences, from which --json and --out are written;
// - the other direction lists a window's refunds and names those the ledger does not hold;
// - memory stays flat: the ledger's numbers are kept as 8-byte hashes, differences on disk.
//
// Read in this order: ledger.ts (a row: columns, kind, status words, amounts), number-set.ts (the
// compact set of numbers), check.ts (the whole ledger checked), compare.ts (one row beside the
// platform's record; the classes), journal.ts (entries, reading, earlier runs), run.ts (the run,
// the other direction, the exit code).
export {LEDGER_COLUMNS} from './ledger.js'
export type {LedgerPlan} from './check.js'
export {DIFFERENCE_CLASSES, type Difference, type DifferenceClass} from './compare.js'
export {differencesIn} from './journal.js'
export {checkOnly, checkWindow, DIFFERENCE_COLUMNS, reconcile, reconcileExitCode, type Summary} from './run.js'
