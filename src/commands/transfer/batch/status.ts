import {relative, resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {apiFlags, BaseCommand} from '../../../cli/base.js'
import {countsLine, failedRowLines, interruptible, parseDuration, verdict, waitFlag, withWaitDefault} from '../../../cli/batch.js'
import {stringifyJson} from '../../../protocol/json.js'
import {batchStatus, RESULT_COLUMNS, type Tally} from '../../../services/batch/index.js'

/** The rows by outcome now, the failed ones, the rows the run never sent, and the journal and result files. */
export type TransferBatchStatusResult = Tally & {notSent: number}

export default class TransferBatchStatus extends BaseCommand {
  static summary = 'Settle a batch: re-query every row not yet final, update the journal and the result CSV'
  static description = `Reads FILE.journal (or a journal given directly, such as an archived one), asks the platform for every row still processing or unknown, records what changed, rewrites the result CSV (--out, else the one the run was given: ${RESULT_COLUMNS.join(', ')}) and prints the summary. Nothing is sent: rows never created stay unknown until \`transfer batch FILE --resume\`. Exit 0 when every row succeeded, 5 when some failed, are unknown or were never sent (an interrupted run: finish it with --resume), 6 when some are still processing. A batch file changed since its run is refused (give the journal to see that run).`

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
    const waitMs = parseDuration(flags.wait)
    const context = await this.context(flags)
    const interrupt = interruptible((signal) => this.notice(`${signal}: stopping after the queries in flight...`))
    let tally: TransferBatchStatusResult
    try {
      tally = await batchStatus({
        file: resolve(args.file),
        client: context.client,
        concurrency: flags.concurrency,
        outFile: flags.out ? resolve(flags.out) : undefined,
        waitMs,
        signal: interrupt.signal,
        onWait: (processing) => {
          if (processing) this.notice(`checking ${processing} processing row(s)...`)
        },
      })
    } finally {
      interrupt.release()
    }
    const {exitCode, note} = verdict(tally, `unipay transfer batch ${relative(process.cwd(), resolve(args.file))}`)
    if (this.json) this.io.out(stringifyJson({ok: exitCode === 0, exitCode, data: tally}, 2))
    else {
      this.notice(`${tally.rows} rows: ${countsLine(tally)}; journal ${tally.journal}${tally.outFile ? `; results ${tally.outFile}` : ''}`)
      for (const line of failedRowLines(tally.failed, '')) this.notice(line)
    }
    if (note) this.notice(note)
    this.setExitCode(exitCode)
    return tally
  }
}
