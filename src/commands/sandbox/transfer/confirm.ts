import {Args, BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import type {TransferOrderResult} from '../../../protocol/answers.js'
import {payeeAnswers} from '../../../services/sandbox.js'

/** The transfer after the payee's move. */
export type SandboxTransferConfirmResult = TransferOrderResult

export default class SandboxTransferConfirm extends BaseCommand {
  static summary = 'Play the payee: accept a walletA transfer waiting for confirmation'
  static description = 'The transfer becomes success and transfer.success goes to its notifyUrl, as when the payee accepts on the confirm page.'
  static examples = ['<%= config.bin %> sandbox transfer confirm TR202511221030000000001']
  static args = {transfer: Args.string({description: 'transferNo, or the merchant\'s bizTransferNo', required: true})}
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxTransferConfirmResult> {
    const {args, flags} = await this.parse(SandboxTransferConfirm)
    const transfer = await payeeAnswers(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.transfer, 'confirm')
    return this.emit(transfer, () => this.io.out(renderRecord(recordRows(transfer), this.io.stdoutTty)))
  }
}
