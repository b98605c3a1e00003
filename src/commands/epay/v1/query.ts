import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpayDryRun, v1Flags} from '../../../cli/epay.js'
import {epayQuery} from '../../../services/epay.js'
import type {EpayOrderData} from '../../../protocol/answers.js'

/** The order's data as answered (null when the answer has none); a dry run, the request. */
export type EpayV1QueryResult = EpayOrderData | null | EpayDryRun

export default class EpayV1Query extends EpayCommand {
  static summary = 'Look up an order through the compatibility module V1 (POST /epay/api/v1/api.php?act=order)'
  static description =
    'V1 queries authenticate with the MD5 key itself (the `key` parameter), so the key is sent in the form body (never in the URL) and redacted from --debug and --dry-run. status: 1 paid, 0 not paid. --trade-no (the platform order number) wins over --out-trade-no.'

  static examples = [
    '<%= config.bin %> epay v1 query --out-trade-no E2026...',
    '<%= config.bin %> epay v1 query --trade-no DP2026... --json',
  ]

  static flags = {
    ...v1Flags,
    'out-trade-no': Flags.string({description: 'merchant order number'}),
    'trade-no': Flags.string({description: 'platform order number (trade_no of the answers)'}),
  }

  async run(): Promise<EpayV1QueryResult> {
    const {flags} = await this.parse(EpayV1Query)
    const {config} = await this.epayContext(flags)
    const result = await epayQuery(config, 'v1', {outTradeNo: flags['out-trade-no'], tradeNo: flags['trade-no']}, {dryRun: flags['dry-run']})
    return this.emitEpay<EpayOrderData | null>(result, (data, body) => this.renderOrder(data, body, false))
  }
}
