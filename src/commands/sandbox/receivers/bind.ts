import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import type {BoundReceiver} from '../../../protocol/local-sandbox.js'
import {ALLOC_RECEIVER_TYPES} from '../../../protocol/schemas.js'
import {bindReceiver} from '../../../services/sandbox.js'

/** The receiver bound. */
export type SandboxReceiversBindResult = BoundReceiver

export default class SandboxReceiversBind extends BaseCommand {
  static summary = 'Bind an allocation receiver to a local sandbox merchant (the channel side of a split)'
  static examples = ['<%= config.bin %> sandbox receivers bind MERCHANT_ID 1900000109 --name "Shop Ltd"']
  static args = {
    type: Args.string({description: 'receiver type', options: [...ALLOC_RECEIVER_TYPES], required: true}),
    account: Args.string({description: 'receiver account', required: true}),
  }

  static flags = {
    name: Flags.string({description: 'receiver name'}),
    'mch-no': Flags.string({description: 'merchant (default: the sandbox merchant)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxReceiversBindResult> {
    const {args, flags} = await this.parse(SandboxReceiversBind)
    const bound = await bindReceiver(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), {
      mchNo: flags['mch-no'],
      receiverType: args.type,
      receiverAccount: args.account,
      receiverName: flags.name,
    })
    return this.emit(bound, () => this.notice(`bound ${args.type}:${args.account}`))
  }
}
