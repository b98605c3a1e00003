import {BaseCommand, Flags} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {credentialsAsEnv, credentialsAsProperties} from '../../output/credentials.js'
import {renderRecord} from '../../output/table.js'
import {credentials as sandboxCredentials, type SandboxCredentials as Credentials} from '../../services/sandbox.js'

/** What a backend needs to call the sandbox (files by name, never their contents). */
export type SandboxCredentialsResult = Credentials

export default class SandboxCredentials extends BaseCommand {
  static summary = 'Print what your own backend needs to call the local sandbox'
  static description =
    'Base address, merchant number, app id, the merchant private key file (PEM, and beside it the same key as bare Base64, which epay V2 client configs take), the platform public key (PEM and bare Base64), the epay pid, V1/V2 base addresses and the V1 MD5 key file (the key\'s characters alone, no trailing newline), and every other merchant\'s MD5 key file (merchants added with `sandbox merchants add` have one too). Files are named, their contents never printed. Starts the sandbox when needed; its port stays the same across restarts.'

  static examples = [
    '<%= config.bin %> sandbox credentials',
    '<%= config.bin %> sandbox credentials --format env > .env.sandbox',
    '<%= config.bin %> sandbox credentials --format properties',
    '<%= config.bin %> sandbox credentials --json',
  ]

  static flags = {
    format: Flags.string({description: 'env: NAME=value lines; properties: unipay.sandbox.key=value lines', options: ['table', 'env', 'properties'], default: 'table'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxCredentialsResult> {
    const {flags} = await this.parse(SandboxCredentials)
    const credentials = await sandboxCredentials(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit(credentials, () => {
      if (flags.format === 'env') return this.io.out(credentialsAsEnv(credentials))
      if (flags.format === 'properties') return this.io.out(credentialsAsProperties(credentials))
      const {platformPublicKeyPem, merchants, ...rest} = credentials
      const units = merchants.map((m) => `${m.mchNo} ${m.allocAmountUnit}`).join(', ') // each merchant's, this one first
      // the others' MD5 key files (epayV1Md5KeyFile above is this merchant's)
      const keyFiles = merchants.filter((m) => m.mchNo !== credentials.mchNo && m.epayV1Md5KeyFile).map((m): [string, string] => [`epayV1Md5KeyFile ${m.mchNo}`, m.epayV1Md5KeyFile!])
      this.io.out(renderRecord([...Object.entries({...rest, allocAmountUnit: units}).map(([k, v]): [string, string] => [k, String(v ?? '')]), ...keyFiles], this.io.stdoutTty))
      // piped: the key is its bare Base64 line above; the PEM block is for a person to copy
      if (this.io.stdoutTty) this.io.out(platformPublicKeyPem)
    })
  }
}
