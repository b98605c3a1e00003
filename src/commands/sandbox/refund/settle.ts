import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import type {RefundRecord} from '../../../protocol/answers.js'
import {settleRefund} from '../../../services/sandbox.js'

/** The settled refund, in its management form. */
export type SandboxRefundSettleResult = RefundRecord

export default class SandboxRefundSettle extends BaseCommand {
  static summary = 'Play the channel: settle a local sandbox refund now (success, or --fail / --close)'
  static description = 'A fail or close gives the amount back to the order\'s refundable balance; refund.* goes to the payment order\'s notifyUrl.'
  static examples = ['<%= config.bin %> sandbox refund settle RF20251122103000000001', '<%= config.bin %> sandbox refund settle R-42 --fail']
  static args = {refund: Args.string({description: 'refundNo or bizRefundNo', required: true})}
  static flags = {
    fail: Flags.boolean({description: 'the channel refuses the refund', exclusive: ['close']}),
    close: Flags.boolean({description: 'the refund is not confirmed in time', exclusive: ['fail']}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxRefundSettleResult> {
    const {args, flags} = await this.parse(SandboxRefundSettle)
    const outcome = flags.fail ? 'fail' : flags.close ? 'close' : 'success'
    const refund = await settleRefund(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.refund, outcome)
    return this.emit(refund, () => this.io.out(renderRecord(recordRows(refund), this.io.stdoutTty)))
  }
}
