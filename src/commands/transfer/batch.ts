import {resolve} from 'node:path'
import {apiFlags, Args, BaseCommand, type Flag, Flags} from '../../cli/base.js'
import {amountNote, commandLine, countsLine, failedRowLines, interruptible, lineWriter, parseWait, profileWords, progressBar, typed, verdict, waitFlag, waitNote, withWaitDefault, type NextCommands} from '../../cli/batch.js'
import {LocalWriteError, UsageError} from '../../errors.js'
import {stringifyJson} from '../../protocol/json.js'
import {centsToYuan} from '../../protocol/money.js'
import {renderRows} from '../../output/table.js'
import {TRANSFER_CHANNELS} from '../../protocol/schemas.js'
import {counted} from '../../protocol/plural.js'
import {PLAN_COLUMNS, planBatch, plannedRows, RESULT_COLUMNS, runBatch, type Plan, type PlannedRow, type RowProblem, type Summary} from '../../services/batch/index.js'
import {defaultChannelMchNo} from '../../services/transfer.js'

/** Rows of a dry-run plan shown on a terminal; piped output and --out carry every row. */
const TERMINAL_PLAN_ROWS = 50

/**
 * A dry run's plan: rows and amounts, in all and by channel; with --out, the file holding every
 * row's plan; with --json, every row's plan (otherwise rows stream out and are not kept).
 */
export type BatchPlanResult = Plan & {problems: number; out?: string; plan?: PlannedRow[]}

/** What a run did (rows by outcome, failed rows, journal and result files), or a dry run's plan. */
export type TransferBatchResult = Summary | BatchPlanResult

export default class TransferBatch extends BaseCommand {
  static summary = 'Pay many payees from a CSV or JSON-lines file, safely resumable'
  static description = `Columns (CSV header, comma-, semicolon- or tab-separated, or JSON keys): channel, channelMchNo, bizTransferNo, amount (cents) or yuan, payeeType, payeeAccount, payeeName, title, reason, attach, notifyUrl, transferScene; flags give defaults for missing ones. Every row is checked first: any bad row stops the run before anything is sent (exit 2, all bad rows listed by line, header problems once on line 1). Each row's bizTransferNo is fixed before the first send (the column, or derived from the file's content and the row), and a journal (FILE.journal) records every send, so after a kill \`--resume\` finishes the job without paying anyone twice: rows whose outcome was unknown are queried, not resent. One process at a time: a second run, --resume or status of the same FILE while one runs is refused (exit 2, naming its pid; FILE.journal.lock), and a lock left by a process that is gone is taken over. A finished file run again is refused (exit 2, saying when it ran): its rows keep their bizTransferNo, so it would pay nobody; to pay the same list again on purpose, add --again (new bizTransferNo for every row, from a run id kept in the journal), or give the rows new numbers in a bizTransferNo column. A new file in its place starts fresh (the finished journal is kept as FILE.<date>.<sha>.journal, and still refuses that content again). Rows the platform already had from a run this journal does not record are not paid again and fail (exit 5). Every hint printed is the full command that finishes the job. Progress bar on a terminal; one JSON line per row of the file when stdout is piped (with --wait, written once the row is final, or with its state when the wait ends). --out writes ${RESULT_COLUMNS.join(', ')}. Exit 0 when every row succeeded, 5 when some failed or stayed unknown, 6 when some are still processing (settle them with --wait, or later with \`transfer batch status FILE\`), 4 when the platform stopped answering (nothing more is sent; --resume later), 74 when a file could not be written once the run began (a full disk: sending stops at once if it is the journal; every outcome is in the journal, and the note gives the \`transfer batch status\` that writes the results, sending nothing), 130/143 when interrupted by SIGINT/SIGTERM (rows in flight finish, --out is written; --resume later; before the first send it just ends, with no journal). --out lists every row of the file in its order, rows not sent included. Every file the run writes is checked before anything is sent (exit 2): its folder exists and can be written, and --out is neither FILE nor its journal. --out and the --dry-run plan are written 0600, and a text cell starting with =, +, -, @, a tab or a carriage return gets a leading ' so that no spreadsheet runs it as a formula.`

  static examples = [
    '<%= config.bin %> transfer batch payouts.csv --concurrency 16 --out results.csv --wait 30m',
    '<%= config.bin %> transfer batch payouts.csv --resume',
    '<%= config.bin %> transfer batch payouts.csv --again --out results.csv',
    '<%= config.bin %> transfer batch status payouts.csv',
    '<%= config.bin %> transfer batch payouts.jsonl --channel walletB --dry-run --out plan.csv',
  ]

  static args = {file: Args.string({description: 'CSV with a header, or .jsonl / .ndjson', required: true})}
  static flags = {
    ...apiFlags,
    'dry-run': Flags.boolean({description: 'check the file and print the plan of every row (line, bizTransferNo, channel, amount, payee), or write it with --out; nothing is sent'}),
    concurrency: Flags.integer({description: 'transfers in flight at once', min: 1, max: 64, default: 8}),
    resume: Flags.boolean({description: 'finish an unfinished run recorded in FILE.journal', exclusive: ['again']}),
    again: Flags.boolean({description: 'pay a file a finished run has paid, again, on purpose: every row gets a new bizTransferNo (from a run id kept in the journal)', exclusive: ['resume', 'dry-run']}),
    wait: waitFlag,
    out: Flags.string({description: `write a result CSV (${RESULT_COLUMNS.join(', ')}); with --dry-run, the plan (${PLAN_COLUMNS.join(', ')})`}),
    channel: Flags.string({description: 'default channel for rows without one', options: [...TRANSFER_CHANNELS]}),
    'channel-mch-no': Flags.string({description: 'default channel merchant number'}),
    title: Flags.string({description: 'default title'}),
    'notify-url': Flags.string({description: 'default notifyUrl'}),
    yes: Flags.boolean({description: 'confirm on a production profile without a prompt'}),
  }

  async run(): Promise<TransferBatchResult> {
    const {args, flags} = await this.parse(TransferBatch, withWaitDefault(this.argv))
    const file = resolve(args.file)
    const waitMs = parseWait(flags.wait)
    const onProblem = (p: RowProblem) => this.io.err(`${p.line ? `line ${p.line}` : args.file}: ${p.field ? `${p.field}: ` : ''}${p.message}`)
    const defaults: Record<string, unknown> = {channel: flags.channel, title: flags.title, notifyUrl: flags['notify-url'], channelMchNo: flags['channel-mch-no']}
    // The profile's channel merchant number is the default for rows without one, dry run or not;
    // the local sandbox is not started for a file that may yet be refused.
    const profile = await this.resolveProfile(flags, {startSandbox: false})
    defaults.channelMchNo ??= defaultChannelMchNo(profile)
    if (flags['dry-run']) return this.dryRun(file, args.file, defaults, onProblem, flags.out)
    const next = nextCommands(file, flags)
    const progress = this.io.stdoutTty && !this.json ? await progressBar(process.stderr) : undefined
    // while the bar shows, every message (notices, warnings, --debug) goes above it
    const io = this.io
    if (progress) this.io = {...io, err: (text) => progress.log(text) || io.err(text)}
    let sending = false
    const interrupt = interruptible((signal) => this.notice(sending ? `${signal}: no more rows are sent; finishing the rows in flight...` : `${signal}: stopping before anything is sent`))
    const waiting = waitNote(`waiting up to ${flags.wait} for`)
    const rows = lineWriter((text) => this.io.out(text))
    let summary: Summary
    try {
      summary = await runBatch({
        file,
        defaults,
        // the platform (and on the local profile, the sandbox) only once the whole file is valid
        connect: async (plan, left) => {
          const context = await this.context(flags, {started: true})
          // a finished file only reports (and with --wait, queries): no money moves
          if (left > 0) await this.confirmMoney(context.profile, batchWhat(plan, left, args.file, flags.again), flags.yes, interrupt.signal)
          return context.client
        },
        concurrency: flags.concurrency,
        resume: flags.resume,
        again: flags.again,
        outFile: flags.out ? resolve(flags.out) : undefined,
        flags: jobWords(flags),
        waitMs,
        signal: interrupt.signal,
        onProblem,
        onNotice: (message) => this.notice(message),
        onStart: (plan, done, state) => {
          sending = true
          if (state === 'resume' || (state === 'done' && flags.resume)) this.notice(`resuming: ${done} of ${counted(plan.rows, 'row')} ${done === 1 ? 'has' : 'have'} a result from an earlier run`)
          progress?.start(plan.rows, done)
        },
        onSent: () => progress?.increment(),
        onRow: (row) => {
          if (!progress && !this.json) rows.push(JSON.stringify(row))
        },
        onWait: (processing) => {
          const note = waiting(processing)
          if (note) this.notice(note)
        },
      })
    } catch (error) {
      if (error instanceof UsageError) error.hint ??= refusalHint(error, next, profileWords(flags))
      // the journal could not be written: sending stopped; what was sent is looked up, never sent again
      if (error instanceof LocalWriteError) error.hint ??= `once there is room: ${next.status} looks up the rows that were sent, sending nothing${flags.out ? ', and writes the results' : ''}; then ${next.run} --resume sends the rows not sent yet (no row twice)`
      throw error
    } finally {
      rows.flush()
      progress?.stop()
      this.io = io
      interrupt.release()
    }
    if (summary.archived) this.notice(`the finished journal of the earlier run was kept as ${summary.archived}`)
    const {exitCode, note} = verdict(summary, next, interrupt.received)
    if (this.json) this.io.out(stringifyJson({ok: exitCode === 0, exitCode, data: summary}, 2))
    else {
      this.notice(
        `${amountNote(summary)}: ${countsLine(summary)}` + (summary.previouslyDone ? ` (${summary.previouslyDone} from an earlier run)` : '') + `; journal ${summary.journal}`,
      )
      for (const line of failedRowLines(summary.failed, ` (see ${summary.outFile ?? summary.journal})`)) this.notice(line)
    }
    if (note) this.notice(note)
    this.setExitCode(exitCode)
    return summary
  }

  private async dryRun(file: string, name: string, defaults: Record<string, unknown>, onProblem: (p: RowProblem) => void, out?: string): Promise<BatchPlanResult> {
    const plan = await planBatch(file, name, defaults, onProblem, out && resolve(out))
    const totals = `dry run: ${counted(plan.rows, 'row')}, ${centsToYuan(plan.totalCents)} yuan in all; nothing was sent`
    if (out) return this.emit({...plan, out: resolve(out)}, () => this.notice(`${totals}; the plan of every row is in ${out}`))
    const cells = (r: PlannedRow) => [String(r.line), r.bizTransferNo, r.channel, String(r.amount), r.payee]
    const byChannel = () => renderRows(['channel', 'rows', 'amount (yuan)'], Object.entries(plan.byChannel).map(([c, v]) => [c, String(v.rows), centsToYuan(v.cents)]), this.io.stdoutTty)
    if (this.json) {
      // one JSON document holds the whole plan; --out streams it for files of any length
      const rows: PlannedRow[] = []
      for await (const row of plannedRows(file, defaults, plan.fileSha256)) rows.push(row)
      return this.emit({...plan, plan: rows}, () => undefined)
    }
    if (!this.io.stdoutTty) {
      // piped: rows stream out in chunks, so memory stays flat however long the file is
      let chunk: string[][] = []
      let first = true
      const flush = () => {
        const text = renderRows(PLAN_COLUMNS, chunk, false)
        this.io.out(first ? text : text.slice(text.indexOf('\n') + 1))
        first = false
        chunk = []
      }
      for await (const row of plannedRows(file, defaults, plan.fileSha256)) {
        chunk.push(cells(row))
        if (chunk.length === 1000) flush()
      }
      if (chunk.length > 0 || first) flush()
    } else {
      // a terminal shows the first rows; the whole plan of a long file belongs in a file
      const rows: PlannedRow[] = []
      for await (const row of plannedRows(file, defaults, plan.fileSha256)) {
        if (rows.length === TERMINAL_PLAN_ROWS) break
        rows.push(row)
      }
      this.io.out(renderRows(PLAN_COLUMNS, rows.map(cells), true))
      if (plan.rows > rows.length) this.notice(`... and ${counted(plan.rows - rows.length, 'more row')}: --out FILE writes the whole plan`)
    }
    this.io.out(byChannel())
    this.notice(totals)
    return plan
  }

}

type BatchFlags = Flag<typeof TransferBatch.flags>

/** What a run would move, for the production confirmation: the whole file, or what is left of it. */
function batchWhat(plan: Plan, left: number, file: string, again?: boolean): string {
  if (left < plan.rows) return `the rest of a batch from ${file} (${counted(left, 'transfer')} of ${plan.rows} without a result yet)`
  return `a batch of ${counted(plan.rows, 'transfer')} (${centsToYuan(plan.totalCents)} yuan) from ${file}${again ? ', paid again with new bizTransferNo' : ''}`
}

/** The run's own flags that its rows and its way of running depend on (recorded in the journal, for `status`). */
function jobWords(flags: BatchFlags): string[] {
  const words: string[] = []
  if (flags.concurrency !== 8) words.push('--concurrency', String(flags.concurrency))
  if (flags.wait !== undefined) words.push('--wait', flags.wait)
  for (const name of ['channel', 'channel-mch-no', 'title', 'notify-url'] as const) if (flags[name] !== undefined) words.push(`--${name}`, flags[name])
  if (flags.yes) words.push('--yes')
  return words
}

/** The commands that finish or settle this run, with FILE, --out and every flag that matters. */
function nextCommands(file: string, flags: BatchFlags): NextCommands {
  const out = flags.out ? ['--out', typed(resolve(flags.out))] : []
  return {
    run: commandLine(['transfer', 'batch', typed(file), ...profileWords(flags), ...jobWords(flags), ...out]),
    status: commandLine(['transfer', 'batch', 'status', typed(file), ...profileWords(flags), ...out]),
  }
}

/** The command line that goes on from a refused run: finish the unfinished one, or pay a finished file again. */
function refusalHint(error: UsageError, next: NextCommands, profile: string[]): string | undefined {
  switch (error.details?.reason) {
    case 'unfinished':
      return `finish it with: ${next.run} --resume (rows already paid are not paid again)`
    case 'other-unfinished':
      return `restore that file here and finish it with: ${next.run} --resume; or move the journal away to start this file`
    case 'already-run':
      // a run whose results file was lost needs that file, not a second payment
      if (typeof error.details.resultsLost === 'string') {
        return `its results were not written to ${error.details.resultsLost}: write them from its journal, sending nothing, with: ${commandLine(['transfer', 'batch', 'status', typed(String(error.details.journal)), ...profile, '--out', typed(error.details.resultsLost)])}`
      }
      return `to pay the same list again on purpose: ${next.run} --again (every row gets a new bizTransferNo); or give the rows new numbers in a bizTransferNo column. That run's results: ${commandLine(['transfer', 'batch', 'status', typed(String(error.details.journal)), ...profile])}`
    default:
      return undefined
  }
}
