import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpayDryRun, v2Flags} from '../../../cli/epay.js'
import {epayClose} from '../../../services/epay.js'
import type {EpayCloseData} from '../../../protocol/answers.js'

/** The closed order's data, the fields the signature vouches for; a dry run, the request. */
export type EpayV2CloseResult = EpayCloseData | null | EpayDryRun

export default class EpayV2Close extends EpayCommand {
  static summary = 'Close an unpaid order through the compatibility module V2 (POST /epay/api/v2/api/pay/close)'
  static description = 'Only an order that is not final can be closed (else platform error 20044). --trade-no wins over --out-trade-no.'
  static examples = ['<%= config.bin %> epay v2 close --out-trade-no E2026...']

  static flags = {
    ...v2Flags,
    'out-trade-no': Flags.string({description: 'merchant order number'}),
    'trade-no': Flags.string({description: 'platform order number'}),
  }

  async run(): Promise<EpayV2CloseResult> {
    const {flags} = await this.parse(EpayV2Close)
    const {config} = await this.epayContext(flags)
    const result = await epayClose(config, {outTradeNo: flags['out-trade-no'], tradeNo: flags['trade-no']}, {dryRun: flags['dry-run']})
    return this.emitEpay<EpayCloseData | null>(result, (data, body) => this.renderOrder(data, body, false))
  }
}
