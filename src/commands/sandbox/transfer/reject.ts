import {Args, BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import type {TransferOrderResult} from '../../../protocol/answers.js'
import {payeeAnswers} from '../../../services/sandbox.js'

/** The transfer after the payee's move. */
export type SandboxTransferRejectResult = TransferOrderResult

export default class SandboxTransferReject extends BaseCommand {
  static summary = 'Play the payee: decline a walletA transfer waiting for confirmation'
  static description = 'The transfer becomes fail, the amount goes back to the balance, and transfer.fail goes to its notifyUrl.'
  static examples = ['<%= config.bin %> sandbox transfer reject TR202511221030000000001']
  static args = {transfer: Args.string({description: 'transferNo, or the merchant\'s bizTransferNo', required: true})}
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxTransferRejectResult> {
    const {args, flags} = await this.parse(SandboxTransferReject)
    const transfer = await payeeAnswers(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.transfer, 'reject')
    return this.emit(transfer, () => this.io.out(renderRecord(recordRows(transfer), this.io.stdoutTty)))
  }
}
