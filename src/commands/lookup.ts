import {apiFlags, Args, BaseCommand, Flags, profileFlags} from '../cli/base.js'
import {describePlatformKey, profileWords} from '../cli/hints.js'
import {renderStory} from '../output/lookup.js'
import {storyReport} from '../output/lookup-report.js'
import {commandLine} from '../output/shell.js'
import {TRANSFER_CHANNELS} from '../protocol/schemas.js'
import {stringifyJson, toPlain} from '../protocol/json.js'
import {counted} from '../protocol/plural.js'
import {formatGmt8} from '../protocol/time.js'
import {reportTarget, writeReport} from '../services/lookup/report-file.js'
import {lookup, type Story} from '../services/lookup/story.js'

/** The story as --json prints it under `data` (its warnings are the document's own). */
export type LookupResult = Omit<Story, 'warnings'>

export default class Lookup extends BaseCommand {
  static summary = 'Everything about one number: the order, its refunds, gateway order and callbacks, verified, with the next step'
  static description = `NUMBER is any number the platform or the merchant uses for an order or what hangs off it: bizOrderNo, orderNo, tradeNo, a gateway order's orderNo, refundNo, bizRefundNo, transferNo, bizTransferNo (with or without --channel), allocNo, bizAllocNo. The lookups its shape suggests are asked first (the local sandbox's numbers and the CLI's own), then the rest, fewest calls first, until one matches; the first line says which kind it matched. --all asks every kind and shows each match.

An order comes with its refunds (from the management API: \`unipay mch login\` first; without a session a warning says so), the gateway order of the same bizOrderNo, and on the local sandbox every callback sent for it; a refund or a split with the order it belongs to. Each record says whether its answer was verified, failed verification, or is unsigned (the management API and the sandbox's control answers carry no signature). Then a timeline (GMT+8) and the next step where one is called for, as a command that runs as given.

On a terminal one screen; piped, "section<TAB>number<TAB>field<TAB>value" lines of raw values (every field of every record; then timeline and next lines); --json one document with every record as the platform sent it and its answer's state. --report FILE writes the story as Markdown for a ticket (0600; checked before anything is asked).

Exit codes: 0 found and verified (parts that could not be fetched are warnings); 1 nothing matched (the lookups tried are listed); 3 an answer shown failed verification (shown, marked); 4 the platform could not be reached.`

  static examples = [
    '<%= config.bin %> lookup T20261127093652000001',
    '<%= config.bin %> lookup P20261127093652AFC15997 --report ticket-4711.md',
    '<%= config.bin %> lookup TF20261127101500A1B2C3D4 --channel walletB --json',
  ]

  static args = {number: Args.string({description: 'a number of an order, refund, transfer or split', required: true})}
  static flags = {
    ...profileFlags,
    timeout: apiFlags.timeout,
    channel: Flags.string({description: 'the channel of a bizTransferNo (one lookup instead of one per channel)', options: [...TRANSFER_CHANNELS]}),
    all: Flags.boolean({description: 'ask every kind of number and show each match'}),
    report: Flags.string({description: 'also write the story as Markdown to FILE, for a ticket (0600)', helpValue: 'FILE'}),
  }

  async run(): Promise<LookupResult> {
    const {args, flags} = await this.parse(Lookup)
    const report = flags.report === undefined ? undefined : reportTarget(flags.report)
    const context = await this.context(flags)
    const words = profileWords(flags)
    const story = await lookup({context, where: {home: this.config.dataDir, env: process.env}}, args.number, {
      channel: flags.channel,
      all: flags.all,
      command: (command, api) => commandLine(api ? [...command, ...words] : command),
    })
    const {warnings, ...data} = story
    for (const warning of warnings) this.warning(warning)
    const failed = story.records.filter((record) => record.state === 'failed verification').length + story.unbelievable.length
    const exitCode = failed > 0 ? 3 : 0
    // the report first: with --json a report that cannot be written is the one document printed
    let unwritten: unknown
    if (report) {
      const {name, settings} = context.profile
      try {
        writeReport(report, storyReport(story, {at: formatGmt8(new Date()), profile: name, baseUrl: settings.baseUrl ?? '', mchNo: settings.mchNo}), this.json ? '--report holds nothing; lookup again without --report to see the story' : '--report holds nothing; the story is above')
      } catch (error) {
        if (this.json) throw error
        unwritten = error
      }
    }
    if (this.json) this.io.out(stringifyJson({ok: exitCode === 0, exitCode, data, warnings: [...this.warned]}, 2))
    else this.io.out(renderStory(story, this.io.stdoutTty))
    if (failed > 0) this.notice(`${counted(failed, 'answer')} failed verification (marked): checked with the ${describePlatformKey(context.profile)}`)
    if (unwritten) throw unwritten
    if (report) this.notice(`report written to ${report}`)
    this.setExitCode(exitCode)
    // numbers made plain, as every command returns its data (see toPlain)
    return toPlain(data) as LookupResult
  }
}
