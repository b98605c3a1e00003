// Batch transfers from a CSV (with a header) or JSON-lines file, for unattended jobs:
// - every row is validated before anything is sent (all bad rows reported, by line; header
//   problems once, on line 1);
// - each row's bizTransferNo is fixed before the first send (a column, or derived from the
//   file's hash and the row index), so a resend can never pay twice;
// - a journal beside the file records "sending" before each call and the outcome after, so a
//   run killed at any moment resumes: rows whose outcome is unknown are queried, not resent;
//   a finished journal of other file content is archived, so a new file starts fresh, and a
//   finished file run again is refused unless it is paid again on purpose (--again);
// - rows left processing are followed (--wait) or re-queried later (status) until final;
// - rows stream through with bounded concurrency, so memory stays flat for any file size.
//
// Read in this order: file.ts (header, rows, validation, plan), journal.ts (entries, reading,
// prior runs), settle.ts (one row: create, look up), sending.ts (the run), following.ts (--wait
// and `status`), results.ts (exit code, result CSV, columns). What is not about transfers (the
// file reader, the CSV writer, the bounded walk over rows, the journal's lock) is in ../files/.
export {derivedBizTransferNo, PLAN_COLUMNS, planBatch, plannedRows, type Plan, type PlannedRow, type RowProblem} from './file.js'
export {batchFileOf, type Tally} from './journal.js'
export {runBatch, type Summary} from './sending.js'
export {batchStatus, type Status} from './following.js'
export {batchExitCode, RESULT_COLUMNS} from './results.js'
