import {resolve} from 'node:path'
import {apiFlags, Args, BaseCommand, Flags} from '../../../cli/base.js'
import {commandLine, countsLine, failedRowLines, interruptible, parseWait, profileWords, typed, verdict, waitFlag, waitNote, withWaitDefault} from '../../../cli/batch.js'
import {stringifyJson} from '../../../protocol/json.js'
import {counted} from '../../../protocol/plural.js'
import {batchFileOf, batchStatus, RESULT_COLUMNS, type Status} from '../../../services/batch/index.js'

/** The rows by outcome now, the failed ones, the rows the run never sent, the journal and result files, and the run's own flags. */
export type TransferBatchStatusResult = Status

export default class TransferBatchStatus extends BaseCommand {
  static summary = 'Settle a batch: re-query every row not yet final, update the journal and the result CSV'
  static description = `Reads FILE.journal (or a journal given directly, such as an archived one), asks the platform for every row still processing or unknown, records what changed, rewrites the result CSV (--out, else the one the run was given: ${RESULT_COLUMNS.join(', ')}) and prints the summary. Nothing is sent: rows never created stay unknown until \`transfer batch FILE --resume\`. Exit 0 when every row succeeded, 5 when some failed, are unknown or were never sent (an interrupted run: the note gives the --resume that finishes it), 6 when some are still processing, 74 when the result CSV could not be written (nothing lost: run it again once there is room). A batch file changed since its run is refused (give the journal to see that run), and so is a batch another process is running (exit 2, naming its pid).`

  static examples = ['<%= config.bin %> transfer batch status payouts.csv', '<%= config.bin %> transfer batch status payouts.csv --wait 1h --out results.csv']

  static args = {file: Args.string({description: 'the batch file (or its journal)', required: true})}
  static flags = {
    ...apiFlags,
    concurrency: Flags.integer({description: 'queries in flight at once', min: 1, max: 64, default: 8}),
    wait: waitFlag,
    out: Flags.string({description: 'write the result CSV here (default: the --out of the run)'}),
  }

  async run(): Promise<TransferBatchStatusResult> {
    const {args, flags} = await this.parse(TransferBatchStatus, withWaitDefault(this.argv))
    const waitMs = parseWait(flags.wait)
    const context = await this.context(flags)
    const interrupt = interruptible((signal) => this.notice(`${signal}: stopping after the queries in flight...`))
    const checking = waitNote(flags.wait ? `following for up to ${flags.wait}` : 'checking')
    const target = resolve(args.file)
    let tally: TransferBatchStatusResult
    try {
      tally = await batchStatus({
        file: target,
        client: context.client,
        concurrency: flags.concurrency,
        outFile: flags.out ? resolve(flags.out) : undefined,
        waitMs,
        signal: interrupt.signal,
        onNotice: (message) => this.notice(message),
        onWait: (processing) => {
          const note = checking(processing)
          if (note) this.notice(note)
        },
      })
    } finally {
      interrupt.release()
    }
    // the commands that go on: the run's own flags, this profile's, and the result file
    const file = typed(target.endsWith('.journal') ? batchFileOf(target) : target)
    const out = tally.outFile ? ['--out', typed(tally.outFile)] : []
    const profile = profileWords(flags)
    const next = {
      run: commandLine(['transfer', 'batch', file, ...profile, ...(tally.runFlags ?? []), ...out]),
      status: commandLine(['transfer', 'batch', 'status', typed(target), ...profile, ...out]),
    }
    const {exitCode, note} = verdict(tally, next)
    if (this.json) this.io.out(stringifyJson({ok: exitCode === 0, exitCode, data: tally}, 2))
    else {
      this.notice(`${counted(tally.rows, 'row')}: ${countsLine(tally)}; journal ${tally.journal}${tally.outFile ? `; results ${tally.outFile}` : ''}`)
      for (const line of failedRowLines(tally.failed, '')) this.notice(line)
    }
    if (note) this.notice(note)
    this.setExitCode(exitCode)
    return tally
  }
}
