import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {readText} from '../../../cli/input.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {addMerchant} from '../../../services/sandbox.js'

/** The merchant registered (`replaced` when --force replaced one of that number), and the sandbox address its profile needs. */
export type SandboxMerchantsAddResult = {mchNo: string; appId: string; replaced: boolean; url: string; epayV1Md5KeyFile?: string}

export default class SandboxMerchantsAdd extends BaseCommand {
  static summary = 'Register another merchant in the local sandbox, with its public key'
  static description = 'Pair it with `keys generate` and a profile whose baseUrl is the sandbox address (see `sandbox status`). The merchant also gets an epay V1 MD5 key, in a file of the sandbox (named on stderr and by `sandbox credentials`; `sandbox merchants set --md5-key-file` replaces it). A merchant of that number already there, the built-in one included, is replaced only with --force (exit 2 without it; its MD5 key stays).'
  static examples = ['<%= config.bin %> sandbox merchants add M2000000002 --public-key-file ~/.config/unipay/keys/merchant-public.pem']
  static args = {mchNo: Args.string({description: 'merchant number', required: true})}
  static flags = {
    'public-key-file': Flags.string({description: 'the merchant\'s public key (PEM or Base64)', required: true}),
    'app-id': Flags.string({description: 'its default app id (default: A + mchNo)'}),
    force: Flags.boolean({description: 'replace a merchant of that number (its key and app)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxMerchantsAddResult> {
    const {args, flags} = await this.parse(SandboxMerchantsAdd)
    const publicKeyPem = readText(`@${flags['public-key-file']}`, '--public-key-file')
    const use = sandboxUse(flags, this.config.dataDir, (m) => this.notice(m))
    const merchant = await addMerchant(use, {mchNo: args.mchNo, appId: flags['app-id'], publicKeyPem, force: flags.force})
    return this.emit(merchant, () => {
      if (merchant.replaced) this.notice(`replaced merchant ${merchant.mchNo}`)
      if (merchant.epayV1Md5KeyFile) this.notice(`its epay V1 MD5 key is in ${merchant.epayV1Md5KeyFile}`)
      this.io.out(`${merchant.mchNo}\t${merchant.appId}\t${merchant.url}`)
    })
  }
}
