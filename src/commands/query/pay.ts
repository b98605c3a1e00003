import {apiFlags, BaseCommand, Flags, type DryRun} from '../../cli/base.js'
import {queryPayment} from '../../services/pay.js'
import type {NormalPayOrderResult} from '../../protocol/answers.js'

/** The payment order as the platform records it; a dry run, the signed request. */
export type QueryPayResult = NormalPayOrderResult | DryRun

export default class QueryPay extends BaseCommand {
  static summary = 'Show a payment order (POST /unipay/query/pay-order)'
  static description =
    'Reads the platform\'s own record; no channel call. --order-no (or --trade-no) wins over --biz-order-no. The platform resolves a trade number, a gateway order number or that order\'s trade number given as the order number to the order it names, and the answer is checked against every number of that order.'

  static examples = [
    '<%= config.bin %> query pay --biz-order-no P2025112200001',
    '<%= config.bin %> query pay --order-no DP2025... --json',
    '<%= config.bin %> query pay --trade-no T2025...',
  ]

  static flags = {
    ...apiFlags,
    'order-no': Flags.string({description: 'platform order number (a trade number or gateway order number is taken too)', exclusive: ['trade-no']}),
    'trade-no': Flags.string({description: 'fund trade number (T..., GT...), as refunds and callbacks carry it: sent as orderNo, which the platform resolves'}),
    'biz-order-no': Flags.string({description: 'merchant order number'}),
  }

  async run(): Promise<QueryPayResult> {
    const {flags} = await this.parse(QueryPay)
    const context = await this.context(flags)
    const result = await queryPayment(context.client, {orderNo: flags['order-no'] ?? flags['trade-no'], bizOrderNo: flags['biz-order-no']}, {dryRun: flags['dry-run']})
    return this.emitCall(result, async (data) => {
      // the renderers load only for a person's output: --json and dry runs never need them
      const [{recordRows}, {renderRecord}] = await Promise.all([import('../../output/record.js'), import('../../output/table.js')])
      this.io.out(renderRecord(recordRows(data), this.io.stdoutTty))
    })
  }
}
