import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'

export default class SandboxFaultsClear extends BaseCommand {
  static summary = 'Remove every injected fault from the local sandbox'
  static examples = ['<%= config.bin %> sandbox faults clear']

  async run(): Promise<void> {
    await this.parse(SandboxFaultsClear)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const {cleared} = await controlCall<{cleared: number}>(runtime, 'DELETE', 'faults')
    await this.emit({cleared}, () => this.notice(`removed ${cleared} armed fault(s); none left`))
  }
}
