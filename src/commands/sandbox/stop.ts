import {BaseCommand} from '../../cli/base.js'
import {stopSandbox} from '../../local-sandbox/control.js'

/** false when it was not running. */
export type SandboxStopResult = {stopped: boolean}

export default class SandboxStop extends BaseCommand {
  static summary = 'Stop the local sandbox (its state stays on disk)'
  static examples = ['<%= config.bin %> sandbox stop']

  async run(): Promise<SandboxStopResult> {
    await this.parse(SandboxStop)
    const stopped = await stopSandbox(this.config.dataDir)
    return this.emit({stopped}, () => this.notice(stopped ? 'stopped the local sandbox' : 'the local sandbox was not running'))
  }
}
