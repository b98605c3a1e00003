import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {SANDBOX_FAULTS, type FaultRule, type SandboxFault} from '../../../protocol/local-sandbox.js'
import {addFault} from '../../../services/sandbox.js'

/** The fault armed. */
export type SandboxFaultsAddResult = FaultRule

export default class SandboxFaultsAdd extends BaseCommand {
  static summary = 'Make the local sandbox misbehave for the next calls (fault injection)'
  static description =
    'http-500 and not-json strike before the call is processed; reset (connection cut mid-answer), timeout (no answer), unsigned-success and bad-signature strike after it took effect; latency delays the answer. See what the CLI does: reads retry, creates are reported as outcome unknown, never resent.'

  static examples = [
    '<%= config.bin %> sandbox faults add reset --path /unipay/pay',
    '<%= config.bin %> sandbox faults add http-500 --times 2',
    '<%= config.bin %> sandbox faults add latency --latency 3000',
  ]

  static args = {fault: Args.string({description: 'what goes wrong', options: [...SANDBOX_FAULTS], required: true})}
  static flags = {
    times: Flags.integer({description: 'how many calls it strikes', min: 1, default: 1}),
    path: Flags.string({description: 'only calls to this path, e.g. /unipay/pay'}),
    latency: Flags.integer({description: 'milliseconds of delay (latency)', min: 1, default: 2000}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxFaultsAddResult> {
    const {args, flags} = await this.parse(SandboxFaultsAdd)
    const rule = await addFault(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), {
      fault: args.fault as SandboxFault,
      remaining: flags.times,
      path: flags.path,
      latencyMs: flags.latency,
    })
    return this.emit(rule, () => this.notice(`the next ${flags.times} call(s)${flags.path ? ` to ${flags.path}` : ''} get: ${args.fault}`))
  }
}
