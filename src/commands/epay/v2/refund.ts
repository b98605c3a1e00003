import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpayDryRun, v2Flags} from '../../../cli/epay.js'
import {epayRefund} from '../../../services/epay.js'
import type {EpayRefundData} from '../../../protocol/answers.js'

/** The refund's data, the fields the signature vouches for; a dry run, the request. */
export type EpayV2RefundResult = EpayRefundData | null | EpayDryRun

export default class EpayV2Refund extends EpayCommand {
  static summary = 'Refund a paid order through the compatibility module V2 (POST /epay/api/v2/api/pay/refund)'
  static description =
    '--money is the refund in yuan (at most 2 decimals, exactly), within what is still refundable. --out-refund-no is generated when omitted and printed: it is the idempotency key, so resending the same one never refunds twice. The refund starts as progress; follow it with `epay v2 refund-query`. On a production profile it asks first (or needs --yes).'
  static examples = ['<%= config.bin %> epay v2 refund --out-trade-no E2026... --money 0.50']

  static flags = {
    ...v2Flags,
    'out-trade-no': Flags.string({description: 'merchant order number of the paid order'}),
    'trade-no': Flags.string({description: 'platform order number of the paid order'}),
    money: Flags.string({description: 'refund amount in yuan, e.g. 0.50', required: true}),
    'out-refund-no': Flags.string({description: 'merchant refund number, the idempotency key (generated when omitted)'}),
    yes: Flags.boolean({description: 'confirm a refund on a production profile without asking'}),
  }

  async run(): Promise<EpayV2RefundResult> {
    const {flags} = await this.parse(EpayV2Refund)
    const {profile, config} = await this.epayContext(flags)
    if (!flags['dry-run']) await this.confirmMoney(profile, `refund ${flags.money} yuan`, flags.yes)
    const result = await epayRefund(
      config,
      {outTradeNo: flags['out-trade-no'], tradeNo: flags['trade-no'], money: flags.money, outRefundNo: flags['out-refund-no']},
      {dryRun: flags['dry-run']},
    )
    return this.emitEpay<EpayRefundData | null>(result, (data, body) => this.renderOrder(data, body, false), {outRefundNo: result.outRefundNo})
  }
}
