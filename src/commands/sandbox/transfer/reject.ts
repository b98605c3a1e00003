import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'
import {recordRows} from '../../../output/record.js'
import {renderRecord} from '../../../output/table.js'

export default class SandboxTransferReject extends BaseCommand {
  static summary = 'Play the payee: decline a walletA transfer waiting for confirmation'
  static description = 'The transfer becomes fail, the amount goes back to the balance, and transfer.fail goes to its notifyUrl.'
  static examples = ['<%= config.bin %> sandbox transfer reject TR202511221030000000001']
  static args = {transferNo: Args.string({description: 'platform transfer number (transferNo)', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(SandboxTransferReject)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const transfer = await controlCall<Record<string, unknown>>(runtime, 'POST', `transfers/${encodeURIComponent(args.transferNo)}/reject`)
    await this.emit(transfer, () => this.io.out(renderRecord(recordRows(transfer), this.io.stdoutTty)))
  }
}
