import {Args, BaseCommand, Flags} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {payAsPayer, type PayerResult} from '../../services/sandbox.js'

/** The order after the payer's move: a gateway order, or a payment order. */
export type SandboxPayResult = PayerResult

export default class SandboxPay extends BaseCommand {
  static summary = 'Play the payer: pay (or fail) a local sandbox order'
  static description =
    'Moves an open order to success (or fail with --fail) and sends pay.success / pay.fail to its notifyUrl. ' +
    'A gateway order (GW...) is paid as on its page: --method or --wallet picks the method unless one is already locked; ' +
    'once paid, its trade is a payment (query pay, refund, alloc).'
  static examples = [
    '<%= config.bin %> sandbox pay DP20251122103000000001',
    '<%= config.bin %> sandbox pay P2025112200001 --fail',
    '<%= config.bin %> sandbox pay GW20251122103000000001 --method walletB_h5',
  ]

  static args = {order: Args.string({description: 'orderNo or bizOrderNo (payment or gateway order)', required: true})}
  static flags = {
    fail: Flags.boolean({description: 'the payment fails'}),
    wallet: Flags.string({description: 'wallet the payer uses (aggregate QR or gateway order; default walletA)', options: ['walletA', 'walletB', 'walletC', 'walletD']}),
    method: Flags.string({description: 'method the payer picks on a gateway order page, e.g. walletA_h5 (cashier) or walletB_jsapi (aggregate)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxPayResult> {
    const {args, flags} = await this.parse(SandboxPay)
    const order = await payAsPayer(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), {
      order: args.order,
      outcome: flags.fail ? 'fail' : 'success',
      wallet: flags.wallet,
      method: flags.method,
    })
    return this.emit(order, () => this.io.out(renderRecord(recordRows(order), this.io.stdoutTty)))
  }
}
