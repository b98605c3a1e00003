import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {readMd5KeyFile} from '../../../cli/input.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {setMerchant} from '../../../services/sandbox.js'

/** The merchant's settings now (its MD5 key by file, never the key). */
export type SandboxMerchantsSetResult = {mchNo: string; allocAmountUnit: 'yuan' | 'cents'; epayV1Md5KeyFile?: string}

export default class SandboxMerchantsSet extends BaseCommand {
  static summary = 'Change a sandbox merchant\'s settings: the unit of allocation amounts, its epay V1 MD5 key'
  static description =
    'The spec gives allocation receiver amounts in yuan; the official SDKs send cents. --alloc-amount-unit cents makes the sandbox read this merchant\'s receiver amounts as whole cents and answer `query alloc` (total and receivers) in cents, as such a deployment does; the built-in local profile follows its merchant\'s unit, another profile pairs it with allocAmountUnit=cents (and is warned when it does not). --md5-key-file gives the merchant the MD5 key your epay shop already has (the file\'s characters, without surrounding white space; printable, no spaces): the sandbox keeps it in the file `sandbox credentials` names, and V1 requests are checked with it. Every merchant has one from the start.'
  static examples = [
    '<%= config.bin %> sandbox merchants set M1000000001 --alloc-amount-unit cents',
    '<%= config.bin %> sandbox merchants set 1001 --md5-key-file ./shop-md5.key',
  ]
  static args = {mchNo: Args.string({description: 'merchant number', required: true})}
  static flags = {
    'alloc-amount-unit': Flags.string({description: 'allocation receiver amounts, in requests and answers', options: ['yuan', 'cents']}),
    'md5-key-file': Flags.string({description: 'file holding the epay V1 MD5 key to give the merchant (no flag takes the key itself: it stays out of shell history)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxMerchantsSetResult> {
    const {args, flags} = await this.parse(SandboxMerchantsSet)
    const md5Key = flags['md5-key-file'] ? readMd5KeyFile(flags['md5-key-file']) : undefined
    const use = sandboxUse(flags, this.config.dataDir, (m) => this.notice(m))
    const settings = await setMerchant(use, args.mchNo, {allocAmountUnit: flags['alloc-amount-unit'], md5Key})
    return this.emit(settings, () => {
      this.io.out(`${settings.mchNo}\tallocAmountUnit=${settings.allocAmountUnit}`)
      if (md5Key !== undefined) this.notice(`the MD5 key of ${settings.mchNo} is set (kept in ${settings.epayV1Md5KeyFile ?? 'the sandbox'})`)
    })
  }
}
