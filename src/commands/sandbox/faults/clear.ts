import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'

/** How many armed faults were removed. */
export type SandboxFaultsClearResult = {cleared: number}

export default class SandboxFaultsClear extends BaseCommand {
  static summary = 'Remove every injected fault from the local sandbox'
  static examples = ['<%= config.bin %> sandbox faults clear']

  async run(): Promise<SandboxFaultsClearResult> {
    await this.parse(SandboxFaultsClear)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const {cleared} = await controlCall<SandboxFaultsClearResult>(runtime, 'DELETE', 'faults')
    return this.emit({cleared}, () => this.notice(`removed ${cleared} armed fault(s); none left`))
  }
}
