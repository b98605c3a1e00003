import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpayDryRun, v2Flags} from '../../../cli/epay.js'
import {epayQuery} from '../../../services/epay.js'
import type {EpayOrderData} from '../../../protocol/answers.js'

/** The order's data, the fields the signature vouches for; a dry run, the request. */
export type EpayV2QueryResult = EpayOrderData | null | EpayDryRun

export default class EpayV2Query extends EpayCommand {
  static summary = 'Look up an order through the compatibility module V2 (POST /epay/api/v2/api/pay/query)'
  static description = 'Signed and verified like `epay v2 create`. --trade-no (the platform order number) wins over --out-trade-no. The flat status is 1 paid, 0 not paid; data.status is the order status.'
  static examples = ['<%= config.bin %> epay v2 query --out-trade-no E2026...']

  static flags = {
    ...v2Flags,
    'out-trade-no': Flags.string({description: 'merchant order number'}),
    'trade-no': Flags.string({description: 'platform order number (trade_no of the answers)'}),
  }

  async run(): Promise<EpayV2QueryResult> {
    const {flags} = await this.parse(EpayV2Query)
    const {config} = await this.epayContext(flags)
    const result = await epayQuery(config, 'v2', {outTradeNo: flags['out-trade-no'], tradeNo: flags['trade-no']}, {dryRun: flags['dry-run']})
    return this.emitEpay<EpayOrderData | null>(result, (data, body) => this.renderOrder(data, body, false))
  }
}
