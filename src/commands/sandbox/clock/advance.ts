import {Args, BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {DURATION_RULE} from '../../../protocol/duration.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import {advanceClock, type SandboxClockState} from '../../../services/sandbox.js'

/** The sandbox's time now (GMT+8), how far it is ahead of the real clock, and whether it is paused. */
export type SandboxClockAdvanceResult = SandboxClockState

export default class SandboxClockAdvance extends BaseCommand {
  static summary = 'Move the local sandbox clock forward'
  static description =
    'What becomes due happens at once: open orders past expiredTime expire (pay.close), refunds and splits settle, ' +
    'unconfirmed walletA transfers close, and callback retries that fell due are made one after another, each at its ' +
    'due time on the sandbox clock (a receiver failing through a week of it ends given up, as notes section 5 says). ' +
    'It returns once they are made. The offset survives a restart; `sandbox reset` clears it. Requests are still signed with the real time.'
  static examples = ['<%= config.bin %> sandbox clock advance 31m', '<%= config.bin %> sandbox clock advance 1d', '<%= config.bin %> sandbox clock advance 1h30m']
  static args = {duration: Args.string({description: `how far: ${DURATION_RULE}; e.g. 31m or 2h`, required: true})}
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxClockAdvanceResult> {
    const {args, flags} = await this.parse(SandboxClockAdvance)
    const clock = await advanceClock(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.duration)
    return this.emit(clock, () => this.io.out(renderRecord(recordRows(clock), this.io.stdoutTty)))
  }
}
