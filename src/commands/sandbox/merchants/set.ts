import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {setMerchant} from '../../../services/sandbox.js'

/** The merchant's settings now. */
export type SandboxMerchantsSetResult = {mchNo: string; allocAmountUnit: 'yuan' | 'cents'}

export default class SandboxMerchantsSet extends BaseCommand {
  static summary = 'Change a sandbox merchant\'s settings, such as the unit of allocation amounts'
  static description =
    'The spec gives allocation receiver amounts in yuan; the official SDKs send cents. --alloc-amount-unit cents makes the sandbox read this merchant\'s receiver amounts as whole cents and answer `query alloc` (total and receivers) in cents, as such a deployment does; pair it with a profile set to allocAmountUnit=cents.'
  static examples = ['<%= config.bin %> sandbox merchants set M1000000001 --alloc-amount-unit cents']
  static args = {mchNo: Args.string({description: 'merchant number', required: true})}
  static flags = {
    'alloc-amount-unit': Flags.string({description: 'allocation receiver amounts, in requests and answers', options: ['yuan', 'cents'], required: true}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxMerchantsSetResult> {
    const {args, flags} = await this.parse(SandboxMerchantsSet)
    const settings = await setMerchant(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.mchNo, {allocAmountUnit: flags['alloc-amount-unit']})
    return this.emit(settings, () => this.io.out(`${settings.mchNo}\tallocAmountUnit=${settings.allocAmountUnit}`))
  }
}
