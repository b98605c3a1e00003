import {BaseCommand} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {resetSandbox} from '../../services/sandbox.js'

export type SandboxResetResult = {reset: true}

export default class SandboxReset extends BaseCommand {
  static summary = 'Stop the local sandbox and forget all its orders and callbacks (keys are kept)'
  static examples = ['<%= config.bin %> sandbox reset']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxResetResult> {
    const {flags} = await this.parse(SandboxReset)
    await resetSandbox(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit({reset: true} as const, () => this.notice('the local sandbox is reset; it starts empty on next use'))
  }
}
