import {Flags} from '../../../cli/base.js'
import {EpayCommand, type EpaySubmitResult, orderInput, v2OrderFlags} from '../../../cli/epay.js'
import {epayCreate} from '../../../services/epay.js'

export default class EpayV2Submit extends EpayCommand {
  static summary = 'Submit an order as a browser would (POST /epay/api/v2/api/pay/submit, RSA) and print where it redirects'
  static description =
    'The same parameters as `epay v2 create`, sent to submit, which creates the order and answers 302 to the payment page. Prints that page\'s address (--open opens it in the browser). Nothing is followed: the payer opens the page.'

  static examples = ['<%= config.bin %> epay v2 submit --method walletA --name Tea --money 3.00 --open']

  static flags = {
    ...v2OrderFlags,
    open: Flags.boolean({description: 'open the payment page in the browser'}),
  }

  async run(): Promise<EpaySubmitResult> {
    const {flags} = await this.parse(EpayV2Submit)
    const {config, swapped} = await this.epayContext(flags)
    const result = await epayCreate(config, 'v2', {...orderInput(flags), swapped}, {dryRun: flags['dry-run'], submit: true})
    return this.emitRedirect(result, flags.open)
  }
}
