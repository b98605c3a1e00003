import {BaseCommand, Flags} from '../../../cli/base.js'
import {tableFlags, tableOptions} from '../../../cli/table-flags.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {display} from '../../../output/format.js'
import {renderRows} from '../../../output/table.js'
import type {BoundReceiver} from '../../../protocol/local-sandbox.js'
import {listReceivers} from '../../../services/sandbox.js'

/** The receivers bound for the merchant. */
export type SandboxReceiversListResult = BoundReceiver[]

export default class SandboxReceiversList extends BaseCommand {
  static summary = 'List the allocation receivers bound in the local sandbox'
  static examples = ['<%= config.bin %> sandbox receivers list']
  static flags = {'mch-no': Flags.string({description: 'merchant (default: the sandbox merchant)'}), ...tableFlags, ...sandboxFlags}

  async run(): Promise<SandboxReceiversListResult> {
    const {flags} = await this.parse(SandboxReceiversList)
    const receivers = await listReceivers(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), flags['mch-no'])
    return this.emit(receivers, () =>
      this.io.out(
        renderRows(
          ['receiverType', 'receiverAccount', 'receiverName', 'boundAt'],
          receivers.map((r) => [display(r.receiverType), display(r.receiverAccount), display(r.receiverName), display(r.boundAt)]),
          this.io.stdoutTty,
          tableOptions(flags, (m) => this.notice(m)),
        ),
      ),
    )
  }
}
