import {EpayCommand, type EpayDryRun, orderInput, v2OrderFlags} from '../../../cli/epay.js'
import {epayCreate} from '../../../services/epay.js'
import type {EpayCreateData} from '../../../protocol/answers.js'

/** The created order's data, the fields the signature vouches for; a dry run, the request. */
export type EpayV2CreateResult = EpayCreateData | null | EpayDryRun

export default class EpayV2Create extends EpayCommand {
  static summary = 'Create an order through the compatibility module V2 (POST /epay/api/v2/api/pay/create, RSA)'
  static description =
    'Signs the parameters and a timestamp with the merchant private key (SHA256withRSA) and sends them form-encoded; the answer is verified with the platform public key, its timestamp must be within 300 s, and its data must agree with the signed fields. type is web|jump|jsapi|app and method the wallet, as the spec says; a profile with epayTypeMethodSwapped=true sends them the other way round, as common epay clients do. --money is yuan with at most 2 decimals, checked exactly. --out-trade-no is generated when omitted; resending the same one is safe.'

  static examples = [
    '<%= config.bin %> epay v2 create --method walletB --name VIP --money 1.00 --notify-url http://127.0.0.1:8787/notify',
    '<%= config.bin %> epay v2 create --type jump --method walletA --name Tea --money 12.50 --json',
  ]

  static flags = v2OrderFlags

  async run(): Promise<EpayV2CreateResult> {
    const {flags} = await this.parse(EpayV2Create)
    const {config, swapped} = await this.epayContext(flags)
    const result = await epayCreate(config, 'v2', {...orderInput(flags), swapped}, {dryRun: flags['dry-run']})
    return this.emitEpay<EpayCreateData | null>(result, (data, body) => this.renderOrder(data, body, true), {outTradeNo: result.outTradeNo})
  }
}
