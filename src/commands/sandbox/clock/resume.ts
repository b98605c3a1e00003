import {BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import {holdClock, type SandboxClockState} from '../../../services/sandbox.js'

export type SandboxClockResumeResult = SandboxClockState

export default class SandboxClockResume extends BaseCommand {
  static summary = 'Let a paused local sandbox clock run on'
  static description = 'It runs on from where it stood (it does not catch up with the time it was paused): `offsetMs` says how far it is now from the real clock.'
  static examples = ['<%= config.bin %> sandbox clock resume']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxClockResumeResult> {
    const {flags} = await this.parse(SandboxClockResume)
    const clock = await holdClock(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), 'resume')
    return this.emit(clock, () => this.io.out(renderRecord(recordRows(clock), this.io.stdoutTty)))
  }
}
