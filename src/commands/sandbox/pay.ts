import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {controlCall, ensureSandbox} from '../../local-sandbox/control.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'

export default class SandboxPay extends BaseCommand {
  static summary = 'Play the payer: pay (or fail) a local sandbox order'
  static description = 'Moves an open order to success (or fail with --fail) and sends pay.success / pay.fail to its notifyUrl.'
  static examples = ['<%= config.bin %> sandbox pay DP20251122103000000001', '<%= config.bin %> sandbox pay P2025112200001 --fail']

  static args = {order: Args.string({description: 'orderNo or bizOrderNo', required: true})}
  static flags = {
    fail: Flags.boolean({description: 'the payment fails'}),
    wallet: Flags.string({description: 'wallet the payer uses for an aggregate QR order', options: ['walletA', 'walletB', 'walletC', 'walletD'], default: 'walletA'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(SandboxPay)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const order = await controlCall<Record<string, unknown>>(runtime, 'POST', 'pay', {
      order: args.order,
      outcome: flags.fail ? 'fail' : 'success',
      wallet: flags.wallet,
    })
    await this.emit(order, () => this.io.out(renderRecord(recordRows(order), this.io.stdoutTty)))
  }
}
