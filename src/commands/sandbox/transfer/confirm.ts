import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import type {TransferOrderResult} from '../../../protocol/answers.js'

/** The transfer after the payee's move. */
export type SandboxTransferConfirmResult = TransferOrderResult

export default class SandboxTransferConfirm extends BaseCommand {
  static summary = 'Play the payee: accept a walletA transfer waiting for confirmation'
  static description = 'The transfer becomes success and transfer.success goes to its notifyUrl, as when the payee accepts on the confirm page.'
  static examples = ['<%= config.bin %> sandbox transfer confirm TR202511221030000000001']
  static args = {transferNo: Args.string({description: 'platform transfer number (transferNo)', required: true})}

  async run(): Promise<SandboxTransferConfirmResult> {
    const {args} = await this.parse(SandboxTransferConfirm)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const transfer = await controlCall<TransferOrderResult>(runtime, 'POST', `transfers/${encodeURIComponent(args.transferNo)}/confirm`)
    return this.emit(transfer, () => this.io.out(renderRecord(recordRows(transfer), this.io.stdoutTty)))
  }
}
