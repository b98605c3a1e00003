import {BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import {holdClock, type SandboxClockState} from '../../../services/sandbox.js'

export type SandboxClockPauseResult = SandboxClockState

export default class SandboxClockPause extends BaseCommand {
  static summary = 'Stop the local sandbox clock where it stands'
  static description =
    'Nothing falls due until `sandbox clock advance` moves it: orders do not expire, refunds and splits do not settle, ' +
    'callback retries wait (first attempts are still made at once). For a walk through an expiry or a retry schedule ' +
    'at your own pace, and for tests. It stays paused across a restart; `sandbox clock resume` lets it run on.'
  static examples = ['<%= config.bin %> sandbox clock pause', '<%= config.bin %> sandbox clock pause --data-dir ./sandbox-state']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxClockPauseResult> {
    const {flags} = await this.parse(SandboxClockPause)
    const clock = await holdClock(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), 'pause')
    return this.emit(clock, () => this.io.out(renderRecord(recordRows(clock), this.io.stdoutTty)))
  }
}
