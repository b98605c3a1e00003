import {resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {apiFlags, BaseCommand} from '../../cli/base.js'
import {UsageError} from '../../errors.js'
import {centsToYuan} from '../../protocol/money.js'
import {renderRows} from '../../output/table.js'
import {TRANSFER_CHANNELS} from '../../protocol/schemas.js'
import {runBatch, validateBatch, type RowProblem, type Summary} from '../../services/batch.js'
import {LOCAL_CHANNEL_MCH_NO} from '../../services/transfer.js'


export default class TransferBatch extends BaseCommand {
  static summary = 'Pay many payees from a CSV or JSON-lines file, safely resumable'
  static description = `Columns (CSV header, or JSON keys): channel, channelMchNo, bizTransferNo, amount (cents) or yuan, payeeType, payeeAccount, payeeName, title, reason, attach, notifyUrl, transferScene; flags give defaults for missing ones. Every row is checked first: any bad row stops the run before anything is sent (exit 2, all bad rows listed by line). Each row's bizTransferNo is fixed before the first send (the column, or derived from the file's content and the row), and a journal (FILE.journal) records every send, so after a kill \`--resume\` finishes the job without paying anyone twice: rows whose outcome was unknown are queried, not resent. Progress bar on a terminal; one JSON line per row when stdout is piped. Exit 0 when every row succeeded or is processing, 5 when some failed or stayed unknown.`

  static examples = [
    '<%= config.bin %> transfer batch payouts.csv --concurrency 16 --out results.csv',
    '<%= config.bin %> transfer batch payouts.csv --resume',
    '<%= config.bin %> transfer batch payouts.jsonl --channel walletB --dry-run',
  ]

  static args = {file: Args.string({description: 'CSV with a header, or .jsonl / .ndjson', required: true})}
  static flags = {
    ...apiFlags,
    concurrency: Flags.integer({description: 'transfers in flight at once', min: 1, max: 64, default: 8}),
    resume: Flags.boolean({description: 'finish a run recorded in FILE.journal'}),
    out: Flags.string({description: 'write a result CSV (line, bizTransferNo, outcome, transferNo, message)'}),
    channel: Flags.string({description: 'default channel for rows without one', options: [...TRANSFER_CHANNELS]}),
    'channel-mch-no': Flags.string({description: 'default channel merchant number'}),
    title: Flags.string({description: 'default title'}),
    'notify-url': Flags.string({description: 'default notifyUrl'}),
    yes: Flags.boolean({description: 'confirm on a production profile without a prompt'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(TransferBatch)
    const file = resolve(args.file)
    const onProblem = (p: RowProblem) => this.io.err(`line ${p.line}: ${p.field ? `${p.field}: ` : ''}${p.message}`)
    const defaults: Record<string, unknown> = {channel: flags.channel, title: flags.title, notifyUrl: flags['notify-url'], channelMchNo: flags['channel-mch-no']}
    // The profile's channel merchant number is the default for rows without one, dry run or not.
    const profile = await this.resolveProfile(flags)
    defaults.channelMchNo ??= profile.settings.channelMchNo ?? (profile.environment === 'local' ? LOCAL_CHANNEL_MCH_NO : undefined)
    if (flags['dry-run']) {
      const plan = await validateBatch(file, defaults, onProblem)
      if (plan.problems > 0) throw new UsageError(`${plan.problems} problem(s) in ${args.file}: nothing would be sent`)
      await this.emit(plan, () => {
        this.io.out(renderRows(['channel', 'rows', 'amount (yuan)'], Object.entries(plan.byChannel).map(([c, v]) => [c, String(v.rows), centsToYuan(v.cents)]), this.io.stdoutTty))
        this.notice(`dry run: ${plan.rows} rows, ${centsToYuan(plan.totalCents)} yuan in all; nothing was sent`)
      })
      return
    }
    const context = await this.context(flags)
    await this.confirmMoney(context.profile, `a batch of transfers from ${args.file}`, flags.yes)
    const {Agent} = await import('node:http')
    const {Agent: HttpsAgent} = await import('node:https')
    const client = {...context.client, agent: {http: new Agent({keepAlive: true}), https: new HttpsAgent({keepAlive: true})}}
    const progress = this.io.stdoutTty && !this.json ? await this.progressBar() : undefined
    let summary: Summary
    try {
      summary = await runBatch({
        file,
        defaults,
        client,
        concurrency: flags.concurrency,
        resume: flags.resume,
        outFile: flags.out ? resolve(flags.out) : undefined,
        onProblem,
        onStart: (plan, done) => {
          progress?.start(plan.rows, done)
          if (done) this.notice(`resuming: ${done} of ${plan.rows} rows were finished by an earlier run`)
        },
        onRow: (row) => {
          if (progress) progress.increment()
          else if (!this.json) this.io.out(JSON.stringify(row))
        },
      })
    } finally {
      progress?.stop()
      client.agent.http.destroy()
      client.agent.https.destroy()
    }
    const failed = summary.counts.fail + summary.counts.unknown
    await this.emit(summary, () => {
      const {counts} = summary
      this.notice(
        `${summary.rows} rows, ${centsToYuan(summary.totalCents)} yuan: ${counts.success} success, ${counts.processing} processing, ${counts.fail} failed, ${counts.unknown} unknown` +
          (summary.previouslyDone ? ` (${summary.previouslyDone} finished by an earlier run)` : '') +
          `; journal ${summary.journal}`,
      )
    })
    if (failed > 0) {
      this.notice(failureNote(failed, summary, flags.out))
      this.setExitCode(5)
    }
  }

  private async progressBar() {
    const {SingleBar, Presets} = await import('cli-progress')
    return new SingleBar({format: 'transfers [{bar}] {value}/{total} {percentage}% · {eta_formatted} left', stream: process.stderr, hideCursor: true}, Presets.shades_classic)
  }
}

function failureNote(failed: number, summary: Summary, out?: string): string {
  return `${failed} row(s) did not succeed (see ${out ?? summary.journal}${summary.counts.unknown ? '; run again with --resume to settle the unknown ones' : ''})`
}
