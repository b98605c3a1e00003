import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'
import type {TransferOrderResult} from '../../../protocol/answers.js'

/** The transfer after the payee's move. */
export type SandboxTransferRejectResult = TransferOrderResult

export default class SandboxTransferReject extends BaseCommand {
  static summary = 'Play the payee: decline a walletA transfer waiting for confirmation'
  static description = 'The transfer becomes fail, the amount goes back to the balance, and transfer.fail goes to its notifyUrl.'
  static examples = ['<%= config.bin %> sandbox transfer reject TR202511221030000000001']
  static args = {transferNo: Args.string({description: 'platform transfer number (transferNo)', required: true})}

  async run(): Promise<SandboxTransferRejectResult> {
    const {args} = await this.parse(SandboxTransferReject)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const transfer = await controlCall<TransferOrderResult>(runtime, 'POST', `transfers/${encodeURIComponent(args.transferNo)}/reject`)
    return this.emit(transfer, () => this.io.out(renderRecord(recordRows(transfer), this.io.stdoutTty)))
  }
}
