import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {openUrl} from '../../cli/open.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {dashboardUrl} from '../../services/sandbox.js'

/** The dashboard's address. */
export type SandboxOpenResult = {url: string}

export default class SandboxOpen extends BaseCommand {
  static summary = 'Open the local sandbox dashboard in a browser (or print its address)'
  static description =
    'Recent payment orders, refunds, allocations, transfers, gateway orders and callbacks with their states and attempts, updated live; from it you can pay or fail an order, settle a refund, confirm a transfer and resend a callback. It works without JavaScript and on a phone.'

  static examples = ['<%= config.bin %> sandbox open', '<%= config.bin %> sandbox open --print']
  static flags = {
    print: Flags.boolean({description: 'print the address instead of opening a browser'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxOpenResult> {
    const {flags} = await this.parse(SandboxOpen)
    const url = await dashboardUrl(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    if (!flags.print && !this.json) {
      const problem = await openUrl(url)
      if (problem) this.notice(`could not open a browser (${problem}); open ${url}`)
    }
    return this.emit({url}, () => this.io.out(url))
  }
}
