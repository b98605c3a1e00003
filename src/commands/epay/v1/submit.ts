import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpaySubmitResult, orderFlags, orderInput, v1Flags} from '../../../cli/epay.js'
import {EPAY_WALLET_VALUES} from '../../../protocol/epay-api.js'
import {epayCreate} from '../../../services/epay.js'

export default class EpayV1Submit extends EpayCommand {
  static summary = 'Submit an order as a browser would (POST /epay/api/v1/submit.php, MD5) and print where it redirects'
  static description =
    'The same parameters as `epay v1 create`, sent to submit.php, which creates the order and answers 302 to the payment page. Prints that page\'s address (--open opens it in the browser). Nothing is followed: the payer opens the page.'

  static examples = [
    '<%= config.bin %> epay v1 submit --type walletA --name Tea --money 3.00 --open',
  ]

  static flags = {
    ...v1Flags,
    ...orderFlags,
    type: Flags.string({description: 'the wallet: alipay (walletB), wxpay (walletA), aggregate or none (the aggregate QR, any wallet), walletA..walletD', options: [...EPAY_WALLET_VALUES]}),
    open: Flags.boolean({description: 'open the payment page in the browser'}),
  }

  async run(): Promise<EpaySubmitResult> {
    const {flags} = await this.parse(EpayV1Submit)
    const {config} = await this.epayContext(flags)
    const result = await epayCreate(config, 'v1', orderInput(flags), {dryRun: flags['dry-run'], submit: true})
    return this.emitRedirect(result, flags.open)
  }
}
