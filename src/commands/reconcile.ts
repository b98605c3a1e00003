import {resolve} from 'node:path'
import {apiFlags, Args, BaseCommand, Flags} from '../cli/base.js'
import {commandLine, interruptible, profileWords, progressBar, typed} from '../cli/batch.js'
import {LocalWriteError, PlatformError} from '../errors.js'
import {closingNote, differenceLines, planLines, summaryLine, summaryTable, writeJsonDocument} from '../output/reconcile.js'
import {counted} from '../protocol/plural.js'
import {checkOnly, checkWindow, DIFFERENCE_COLUMNS, differencesIn, LEDGER_COLUMNS, reconcile, reconcileExitCode, type LedgerPlan, type Summary} from '../services/reconcile/index.js'
import type {RowProblem} from '../services/files/reader.js'

const {verify: _, ...answerVerifiedFlags} = apiFlags

/** What a run found (rows, matches and differences by class, with the money on each side), or a dry run's account of the ledger. */
export type ReconcileResult = Summary | LedgerPlan

export default class Reconcile extends BaseCommand {
  static summary = "Compare the merchant's ledger with the platform's records"
  static description = `LEDGER is what the merchant's books export: CSV with a header (comma, semicolon or tab; a BOM and CRLF are fine) or JSON lines (.jsonl, .ndjson), one record a row. Columns, named after the spec's fields: ${LEDGER_COLUMNS.join(', ')}. A payment is bizOrderNo, amount (cents) or yuan, status (PayStatusEnum, or the fund-status words init and processing) and, optionally, refunded (the cents the merchant believes refunded); a refund is bizRefundNo (with its bizOrderNo when the ledger has it), amount or yuan, status (RefundOrderStatusEnum); a transfer is bizTransferNo, channel, amount or yuan, status (PayFundStatusEnum). A kind column (pay, refund, transfer) says which; otherwise the number does. Other columns are ignored and named once; a column near one of these (a slip) is refused with a suggestion. Every row is checked first: any bad row stops the run before anything is asked (exit 2, every bad row listed by line).

Each row is then asked of the platform (bounded concurrency; reads retried; every answer verified: there is no --no-verify) and what differs is classed: missing on platform, amount differs, status differs, refunded differs (the order's successful refunds from the management API: a ledger with refunded needs \`unipay mch login\`), duplicate in ledger, ambiguous (a bizRefundNo several orders hold: give the row its bizOrderNo), platform error, unverified (an answer that did not verify is never a match). With --create-time-start and --create-time-end (and a session), the refunds the platform created in that window that the ledger does not hold: missing in ledger. A row that matches is counted, not printed.

Differences are printed as they are found (a table on a terminal, tab-separated lines piped), then a summary with the money on each side; --json prints one document at the end; --out writes every difference as CSV (${DIFFERENCE_COLUMNS.join(', ')}; mode 0600). A journal (LEDGER.reconcile-journal, or --journal) records every row compared: after an interruption --resume goes on without asking again; a run without --resume starts afresh. Exit 0 when everything matches, 5 when something differs, 3 when an answer did not verify (the other rows are still compared), 4 when the platform did not answer (the run stops early and says how far it got), 1 when the management API refused an ended session, 74 when the journal or --out could not be written (--resume goes on), 130/143 when interrupted.`

  static examples = [
    '<%= config.bin %> reconcile ledger.csv',
    '<%= config.bin %> reconcile ledger.csv --out differences.csv --concurrency 16',
    '<%= config.bin %> reconcile refunds.jsonl --create-time-start "2026-11-24 00:00:00" --create-time-end "2026-11-24 23:59:59"',
    '<%= config.bin %> reconcile ledger.csv --resume',
    '<%= config.bin %> reconcile ledger.csv --dry-run',
  ]

  static args = {ledger: Args.string({description: 'CSV with a header, or .jsonl / .ndjson', required: true})}
  static flags = {
    // every answer is verified: a reconciliation on answers not verified would prove nothing
    ...answerVerifiedFlags,
    'dry-run': Flags.boolean({description: 'check the ledger and say what it holds; nothing is asked'}),
    concurrency: Flags.integer({description: 'rows asked at once', min: 1, max: 64, default: 8}),
    resume: Flags.boolean({description: 'go on with the run the journal records, without asking again about the rows it compared'}),
    journal: Flags.string({description: 'the journal (default: LEDGER.reconcile-journal)'}),
    // a dry run compares nothing: it has no differences to write
    out: Flags.string({description: `write every difference as CSV (${DIFFERENCE_COLUMNS.join(', ')})`, exclusive: ['dry-run']}),
    'create-time-start': Flags.string({description: 'with --create-time-end: refunds the platform created from this time ("yyyy-MM-dd HH:mm:ss", GMT+8) that the ledger does not hold', dependsOn: ['create-time-end']}),
    'create-time-end': Flags.string({description: 'the window\'s end ("yyyy-MM-dd HH:mm:ss", GMT+8, included)', dependsOn: ['create-time-start']}),
  }

  async run(): Promise<ReconcileResult> {
    const {args, flags} = await this.parse(Reconcile)
    const ledger = resolve(args.ledger)
    const onProblem = (p: RowProblem) => this.io.err(`${p.line ? `line ${p.line}` : args.ledger}: ${p.field ? `${p.field}: ` : ''}${p.message}`)
    if (flags['dry-run']) {
      const plan = await checkOnly(ledger, args.ledger, onProblem)
      return this.emit(plan, () => this.notice(planLines(plan, args.ledger)))
    }
    const window = checkWindow(flags['create-time-start'], flags['create-time-end'])
    const journal = resolve(flags.journal ?? `${args.ledger}.reconcile-journal`)
    const profile = await this.resolveProfile(flags, {startSandbox: false})
    const progress = !this.json && process.stderr.isTTY ? await progressBar(process.stderr, 'rows') : undefined
    let showing = false
    // while the bar shows, notices go above it, and a difference on the same terminal clears its line first
    const io = this.io
    if (progress) this.io = {...io, err: (text) => progress.log(text) || io.err(text)}
    const interrupt = interruptible((signal) => this.notice(`${signal}: no more rows are asked; finishing the rows in flight...`))
    let first = true
    let summary: Summary
    try {
      summary = await reconcile({
        ledger,
        name: args.ledger,
        journal,
        outFile: flags.out ? resolve(flags.out) : undefined,
        concurrency: flags.concurrency,
        resume: flags.resume,
        window,
        hasSession: () => Boolean(profile.settings.token),
        connect: async (management) => {
          const {client} = await this.context(flags, {started: true})
          return {client, management: management ? (await this.managementContext(flags)).config : undefined}
        },
        signal: interrupt.signal,
        onProblem,
        onNotice: (message) => this.notice(message),
        onStart: (plan, done) => {
          if (done) this.notice(`resuming: ${done} of ${counted(plan.rows, 'row')} compared by an earlier run`)
          progress?.start(plan.rows, done)
          showing = Boolean(progress)
        },
        onRow: () => progress?.increment(),
        onDifference: (difference) => {
          if (this.json) return
          const lines = differenceLines(difference, this.io.stdoutTty, first)
          first = false
          if (showing && this.io.stdoutTty) progress!.clear()
          this.io.out(lines)
        },
      })
    } catch (error) {
      // a session that ended: log in, then go on
      if (error instanceof PlatformError && error.code === 401) error.hint = `log in with: unipay mch login --account ACCOUNT; then go on with: ${resumeCommand(args.ledger, flags)}`
      // a journal or --out the disk refused: every row compared is in the journal; the command that goes on
      if (error instanceof LocalWriteError) error.hint ??= `once the disk takes it: ${resumeCommand(args.ledger, flags)}`
      throw error
    } finally {
      progress?.stop()
      this.io = io
      interrupt.release()
    }
    const exitCode = interrupt.received ? (interrupt.received === 'SIGINT' ? 130 : 143) : reconcileExitCode(summary)
    if (this.json) await writeJsonDocument((text) => this.io.out(text), summary, exitCode, differencesIn(journal), this.warnings)
    else {
      this.notice(summaryLine(summary, args.ledger))
      this.notice(summaryTable(summary, true))
      const note = closingNote(summary, exitCode, interrupt.received, resumeCommand(args.ledger, flags))
      if (note) this.notice(note)
    }
    this.setExitCode(exitCode)
    return summary
  }
}

type ReconcileFlags = Parameters<typeof profileWords>[0] & {journal?: string; out?: string; concurrency: number; 'create-time-start'?: string; 'create-time-end'?: string}

/** The command that goes on with this run: the ledger and every flag that matters, with --resume. */
function resumeCommand(ledger: string, flags: ReconcileFlags): string {
  const words = ['reconcile', typed(resolve(ledger)), ...profileWords(flags)]
  if (flags.concurrency !== 8) words.push('--concurrency', String(flags.concurrency))
  for (const name of ['journal', 'out', 'create-time-start', 'create-time-end'] as const) if (flags[name] !== undefined) words.push(`--${name}`, flags[name])
  return `${commandLine(words)} --resume`
}
