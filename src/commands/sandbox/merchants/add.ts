import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../../cli/base.js'
import {readText} from '../../../cli/input.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'

/** The merchant registered, and the sandbox address its profile needs. */
export type SandboxMerchantsAddResult = {mchNo: string; appId: string; url: string}

export default class SandboxMerchantsAdd extends BaseCommand {
  static summary = 'Register another merchant in the local sandbox, with its public key'
  static description = 'Pair it with `keys generate` and a profile whose baseUrl is the sandbox address (see `sandbox status`).'
  static examples = ['<%= config.bin %> sandbox merchants add M2000000002 --public-key-file ~/.config/unipay/keys/merchant-public.pem']
  static args = {mchNo: Args.string({description: 'merchant number', required: true})}
  static flags = {
    'public-key-file': Flags.string({description: 'the merchant\'s public key (PEM or Base64)', required: true}),
    'app-id': Flags.string({description: 'its default app id (default: A + mchNo)'}),
  }

  async run(): Promise<SandboxMerchantsAddResult> {
    const {args, flags} = await this.parse(SandboxMerchantsAdd)
    const publicKeyPem = readText(`@${flags['public-key-file']}`, '--public-key-file')
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const merchant = await controlCall<{mchNo: string; appId: string}>(runtime, 'POST', 'merchants', {mchNo: args.mchNo, appId: flags['app-id'], publicKeyPem})
    return this.emit({...merchant, url: runtime.url}, () => this.io.out(`${merchant.mchNo}\t${merchant.appId}\t${runtime.url}`))
  }
}
