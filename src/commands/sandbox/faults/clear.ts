import {BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {clearFaults} from '../../../services/sandbox.js'

/** How many armed faults were removed. */
export type SandboxFaultsClearResult = {cleared: number}

export default class SandboxFaultsClear extends BaseCommand {
  static summary = 'Remove every injected fault from the local sandbox'
  static examples = ['<%= config.bin %> sandbox faults clear']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxFaultsClearResult> {
    const {flags} = await this.parse(SandboxFaultsClear)
    const {cleared} = await clearFaults(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit({cleared}, () => this.notice(`removed ${cleared} armed fault(s); none left`))
  }
}
