import {BaseCommand, Flags} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {resetSandbox} from '../../services/sandbox.js'

export type SandboxResetResult = {reset: true}

export default class SandboxReset extends BaseCommand {
  static summary = 'Stop the local sandbox and forget all its orders and callbacks (keys are kept)'
  static description = 'Asks first on a terminal; without one (a script, CI) it needs --yes, and refuses otherwise (exit 2) with nothing forgotten.'
  static examples = ['<%= config.bin %> sandbox reset', '<%= config.bin %> sandbox reset --yes --data-dir ./sandbox-state']
  static flags = {
    yes: Flags.boolean({description: 'reset without asking (required without a terminal)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxResetResult> {
    const {flags} = await this.parse(SandboxReset)
    const use = sandboxUse(flags, this.config.dataDir, (m) => this.notice(m))
    const what = `every order, refund, split, transfer and callback of the sandbox in ${use.location.dataDir}`
    if (!flags.yes) {
      await this.confirmOrYes({
        question: `Forget ${what}?`,
        withoutTerminal: `sandbox reset forgets ${what}: pass --yes to confirm`,
        notDone: 'not confirmed; nothing was reset',
      })
    }
    await resetSandbox(use)
    return this.emit({reset: true} as const, () => this.notice('the local sandbox is reset; it starts empty on next use'))
  }
}
