import {BaseCommand} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {stopSandbox} from '../../services/sandbox.js'

/** false when it was not running. */
export type SandboxStopResult = {stopped: boolean}

export default class SandboxStop extends BaseCommand {
  static summary = 'Stop the local sandbox (its state stays on disk)'
  static examples = ['<%= config.bin %> sandbox stop', '<%= config.bin %> sandbox stop --data-dir ./sandbox-state']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxStopResult> {
    const {flags} = await this.parse(SandboxStop)
    const stopped = await stopSandbox(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit({stopped}, () => this.notice(stopped ? 'stopped the local sandbox' : 'the local sandbox was not running'))
  }
}
