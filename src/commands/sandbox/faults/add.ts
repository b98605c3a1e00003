import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {SANDBOX_FAULTS, type FaultRule, type SandboxFault} from '../../../protocol/local-sandbox.js'
import {addFault} from '../../../services/sandbox.js'

/** The fault armed. */
export type SandboxFaultsAddResult = FaultRule

export default class SandboxFaultsAdd extends BaseCommand {
  static summary = 'Make the local sandbox misbehave for the next calls (fault injection)'
  static description =
    'Strikes the calls of the signed API (/unipay/*) and of the epay module (/epay/*: V1 and V2, their submit included). http-500 and not-json strike before the call is processed; reset (connection cut mid-answer), timeout (no answer), unsigned-success and bad-signature strike after it took effect; latency delays the answer. The two signature faults need a signed answer: refused (exit 2, saying why) on a path whose answers carry no signature (epay V1, a submit), and without --path they strike only signed answers. A --path no call goes to is refused too. See what a client does: the CLI retries reads, reports creates as outcome unknown and never resends them.'

  static examples = [
    '<%= config.bin %> sandbox faults add reset --path /unipay/pay',
    '<%= config.bin %> sandbox faults add http-500 --times 2',
    '<%= config.bin %> sandbox faults add latency --latency 3000',
    '<%= config.bin %> sandbox faults add bad-signature --path /epay/api/v2/api/pay/query',
  ]

  static args = {fault: Args.string({description: 'what goes wrong', options: [...SANDBOX_FAULTS], required: true})}
  static flags = {
    times: Flags.integer({description: 'how many calls it strikes', min: 1, default: 1}),
    path: Flags.string({description: 'only calls to this path, e.g. /unipay/pay or /epay/api/v1/mapi.php'}),
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
