import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {syncRefund} from '../../services/refund.js'
import type {SyncAnswer} from '../../protocol/answers.js'

/** The refund's status after the platform asked the channel; a dry run, the signed request. */
export type RefundSyncResult = SyncAnswer | DryRun

export default class RefundSync extends BaseCommand {
  static summary = 'Ask the platform to re-check a refund with the channel (POST /unipay/sync/order/refund)'
  static examples = ['<%= config.bin %> refund sync --biz-refund-no R-42']

  static flags = {
    ...apiFlags,
    'refund-no': Flags.string({description: 'platform refund number (wins over --biz-refund-no)'}),
    'biz-refund-no': Flags.string({description: 'merchant refund number'}),
  }

  async run(): Promise<RefundSyncResult> {
    const {flags} = await this.parse(RefundSync)
    const context = await this.context(flags)
    const result = await syncRefund(context.client, {refundNo: flags['refund-no'], bizRefundNo: flags['biz-refund-no']}, {dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
