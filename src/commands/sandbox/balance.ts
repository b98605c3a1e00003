import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {amountInCents} from '../../cli/input.js'
import {controlCall, ensureSandbox} from '../../local-sandbox/control.js'
import {money, shown} from '../../output/format.js'

/** The merchant's balance in cents, after --set-amount / --set-yuan. */
export type SandboxBalanceResult = {mchNo: string; balance: number}

export default class SandboxBalance extends BaseCommand {
  static summary = 'Show or set a local sandbox merchant\'s balance (what transfers draw on)'
  static examples = ['<%= config.bin %> sandbox balance', '<%= config.bin %> sandbox balance --set-yuan 100']
  static flags = {
    'set-amount': Flags.string({description: 'new balance in cents'}),
    'set-yuan': Flags.string({description: 'new balance in yuan'}),
    'mch-no': Flags.string({description: 'merchant (default: the sandbox merchant)'}),
  }

  async run(): Promise<SandboxBalanceResult> {
    const {flags} = await this.parse(SandboxBalance)
    const amount = amountInCents({amount: flags['set-amount'], yuan: flags['set-yuan']}, false)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const mchNo = flags['mch-no'] ?? runtime.merchant.mchNo
    const answer =
      amount === undefined
        ? await controlCall<SandboxBalanceResult>(runtime, 'GET', `balance?mchNo=${encodeURIComponent(mchNo)}`)
        : await controlCall<SandboxBalanceResult>(runtime, 'POST', 'balance', {mchNo, amount})
    return this.emit(answer, () => this.io.out(`${answer.mchNo}\t${shown(money(answer.balance), this.io.stdoutTty)}`))
  }
}
