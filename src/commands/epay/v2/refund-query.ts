import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpayDryRun, v2Flags} from '../../../cli/epay.js'
import {epayRefundQuery} from '../../../services/epay.js'
import type {EpayRefundOrderData} from '../../../protocol/answers.js'

/** The refund's data, the fields the signature vouches for; a dry run, the request. */
export type EpayV2RefundQueryResult = EpayRefundOrderData | null | EpayDryRun

export default class EpayV2RefundQuery extends EpayCommand {
  static summary = 'Look up a refund through the compatibility module V2 (POST /epay/api/v2/api/pay/refund_query)'
  static description = 'By --out-refund-no (the merchant refund number) or --refund-no (the platform one, which wins). The flat status is 1 once the refund succeeded, 0 otherwise; data.status says progress, success, fail or close.'
  static examples = ['<%= config.bin %> epay v2 refund-query --out-refund-no ER2026...']

  static flags = {
    ...v2Flags,
    'out-refund-no': Flags.string({description: 'merchant refund number'}),
    'refund-no': Flags.string({description: 'platform refund number'}),
  }

  async run(): Promise<EpayV2RefundQueryResult> {
    const {flags} = await this.parse(EpayV2RefundQuery)
    const {config} = await this.epayContext(flags)
    const result = await epayRefundQuery(config, {outRefundNo: flags['out-refund-no'], refundNo: flags['refund-no']}, {dryRun: flags['dry-run']})
    return this.emitEpay<EpayRefundOrderData | null>(result, (data, body) => this.renderOrder(data, body, false))
  }
}
