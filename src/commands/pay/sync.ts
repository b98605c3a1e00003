import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {syncPayment} from '../../services/pay.js'
import type {SyncAnswer} from '../../protocol/answers.js'

/** The order's status after the platform asked the channel; a dry run, the signed request. */
export type PaySyncResult = SyncAnswer | DryRun

export default class PaySync extends BaseCommand {
  static summary = 'Ask the platform to re-check a payment with the channel (POST /unipay/sync/order/pay)'
  static description = 'Answers the order status and whether the platform corrected its local state (adjust).'
  static examples = ['<%= config.bin %> pay sync --biz-order-no P2025112200001']

  static flags = {
    ...apiFlags,
    'order-no': Flags.string({description: 'platform order number, or its trade number'}),
    'biz-order-no': Flags.string({description: 'merchant order number'}),
    'out-order-no': Flags.string({description: 'channel order number'}),
  }

  async run(): Promise<PaySyncResult> {
    const {flags} = await this.parse(PaySync)
    const context = await this.context(flags)
    const result = await syncPayment(
      context.client,
      {orderNo: flags['order-no'], bizOrderNo: flags['biz-order-no'], outOrderNo: flags['out-order-no']},
      {dryRun: flags['dry-run']},
    )
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
