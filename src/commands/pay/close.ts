import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {closePayment} from '../../services/pay.js'

/** The platform answers no data to a close; a dry run, the signed request. */
export type PayCloseResult = null | DryRun

export default class PayClose extends BaseCommand {
  static summary = 'Close (or cancel) an unpaid payment order (POST /unipay/close)'
  static description = 'Allowed only while the order is wait or progress; a final order answers 20044. The platform sends pay.close.'
  static examples = ['<%= config.bin %> pay close --biz-order-no P2025112200001', '<%= config.bin %> pay close --order-no DP2025... --cancel']

  static flags = {
    ...apiFlags,
    'order-no': Flags.string({description: 'platform order number, its trade number, or a gateway order number (wins over --biz-order-no)'}),
    'biz-order-no': Flags.string({description: 'merchant order number'}),
    cancel: Flags.boolean({description: 'cancel instead of close (useCancel=true)'}),
  }

  async run(): Promise<PayCloseResult> {
    const {flags} = await this.parse(PayClose)
    const context = await this.context(flags)
    const result = await closePayment(
      context.client,
      {orderNo: flags['order-no'], bizOrderNo: flags['biz-order-no']},
      flags.cancel,
      {dryRun: flags['dry-run']},
    )
    return this.emitCall(result, () => this.io.out(flags.cancel ? 'cancelled' : 'closed'))
  }
}
