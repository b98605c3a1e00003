import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpayDryRun, orderFlags, orderInput, v1Flags} from '../../../cli/epay.js'
import {EPAY_WALLET_VALUES} from '../../../protocol/epay-api.js'
import {epayCreate} from '../../../services/epay.js'
import type {EpayCreateData} from '../../../protocol/answers.js'

/** The created order's data as answered (null when the answer has none); a dry run, the request. */
export type EpayV1CreateResult = EpayCreateData | null | EpayDryRun

export default class EpayV1Create extends EpayCommand {
  static summary = 'Create an order through the compatibility module V1 (POST /epay/api/v1/mapi.php, MD5)'
  static description =
    'Signs the parameters with the MD5 key (the profile\'s md5Key, or --md5-key-file; appended directly, or as &key= when the profile\'s md5KeyAppendForm is key-param) and sends them form-encoded. pid is the profile\'s pid (else its mchNo). --money is yuan with at most 2 decimals, checked exactly before anything is sent. V1 answers are not signed. --out-trade-no is generated when omitted; resending the same one is safe (it is the idempotency key).'

  static examples = [
    '<%= config.bin %> epay v1 create --type walletB --name VIP --money 1.00 --notify-url http://127.0.0.1:8787/notify',
    '<%= config.bin %> epay v1 create --type walletA --name Tea --money 12.50 --md5-key-file md5.key --json',
  ]

  static flags = {
    ...v1Flags,
    ...orderFlags,
    type: Flags.string({description: 'the wallet: alipay (walletB), wxpay (walletA), aggregate or none (the aggregate QR, any wallet), walletA..walletD', options: [...EPAY_WALLET_VALUES]}),
  }

  async run(): Promise<EpayV1CreateResult> {
    const {flags} = await this.parse(EpayV1Create)
    const {config} = await this.epayContext(flags)
    const result = await epayCreate(config, 'v1', orderInput(flags), {dryRun: flags['dry-run']})
    return this.emitEpay<EpayCreateData | null>(result, (data, body) => this.renderOrder(data, body, true), {outTradeNo: result.outTradeNo})
  }
}
