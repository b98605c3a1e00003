import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'

export default class SandboxFaultsClear extends BaseCommand {
  static summary = 'Remove every injected fault from the local sandbox'
  static examples = ['<%= config.bin %> sandbox faults clear']

  async run(): Promise<void> {
    await this.parse(SandboxFaultsClear)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    await controlCall(runtime, 'DELETE', 'faults')
    await this.emit({cleared: true}, () => this.notice('no faults left'))
  }
}
