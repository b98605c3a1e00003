import {BaseCommand} from '../../cli/base.js'
import {resetSandbox} from '../../local-sandbox/control.js'

export type SandboxResetResult = {reset: true}

export default class SandboxReset extends BaseCommand {
  static summary = 'Stop the local sandbox and forget all its orders and callbacks (keys are kept)'
  static examples = ['<%= config.bin %> sandbox reset']

  async run(): Promise<SandboxResetResult> {
    await this.parse(SandboxReset)
    await resetSandbox(this.config.dataDir)
    return this.emit({reset: true} as const, () => this.notice('the local sandbox is reset; it starts empty on next use'))
  }
}
