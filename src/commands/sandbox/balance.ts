import {BaseCommand, Flags} from '../../cli/base.js'
import {amountInCents} from '../../cli/input.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {money} from '../../output/format.js'
import {renderRecord} from '../../output/table.js'
import {merchantBalance} from '../../services/sandbox.js'

/** The merchant's balance in cents, after --set-amount / --set-yuan. */
export type SandboxBalanceResult = {mchNo: string; balance: number}

export default class SandboxBalance extends BaseCommand {
  static summary = 'Show or set a local sandbox merchant\'s balance (what transfers draw on)'
  static examples = ['<%= config.bin %> sandbox balance', '<%= config.bin %> sandbox balance --set-yuan 100']
  static flags = {
    'set-amount': Flags.string({description: 'new balance in cents'}),
    'set-yuan': Flags.string({description: 'new balance in yuan'}),
    'mch-no': Flags.string({description: 'merchant (default: the sandbox merchant)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxBalanceResult> {
    const {flags} = await this.parse(SandboxBalance)
    const amount = amountInCents({amount: flags['set-amount'], yuan: flags['set-yuan']}, {
      required: false,
      minCents: 0,
      maxCents: Number.MAX_SAFE_INTEGER,
      flags: {cents: 'set-amount', yuan: 'set-yuan'},
    })
    const answer = await merchantBalance(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), {mchNo: flags['mch-no'], amount})
    return this.emit(answer, () => this.io.out(renderRecord([['mchNo', answer.mchNo], ['balance', money(answer.balance)]], this.io.stdoutTty)))
  }
}
