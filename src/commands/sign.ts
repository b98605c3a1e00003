// Flags from base, not oclif's index (as verify): a signature is a start-up-bound command
import {BaseCommand, Flags, profileFlags} from '../cli/base.js'
import {readJsonData, readKeyFile, readMd5KeyFile} from '../cli/input.js'
import {NO_MD5_KEY, UsageError} from '../errors.js'
import {signUnsigned, type Signed, type Unsigned} from '../services/sign.js'

/** The compatibility module's parameter reader, loaded only for its schemes (it brings its API client along). */
const readEpayParams = async (text: string) => (await import('../cli/epay.js')).readEpayParams(text).params

/** The string to sign and its signature (with the rule, for the epay schemes). */
export type SignResult = Signed

export default class Sign extends BaseCommand {
  static summary = 'Print the string to sign and the signature of any JSON body'
  static description =
    'Applies the /unipay/* rule (flatten, skip null, keep empty strings, sort whole keys, drop sign) and signs with SHA256withRSA. Nothing is added to the body and nothing is sent. Without --private-key the active profile\'s key is used. Stable output: --json gives {"canonicalString", "signature"}; piped output is two lines. With --scheme epay-v1 or epay-v2, --data holds the compatibility module\'s parameters (a JSON object or a query string) and its rule applies: every parameter but sign, sign_type and empty values, sorted, k=v joined by &; V1 appends the MD5 key (--md5-key-file or the profile\'s, never printed) and takes the MD5, V2 signs with SHA256withRSA.'

  static examples = [
    '<%= config.bin %> sign --data @body.json',
    'cat body.json | <%= config.bin %> sign --data - --private-key merchant.pem --json',
    '<%= config.bin %> sign --scheme epay-v1 --data @params.json --md5-key-file md5.key',
    '<%= config.bin %> sign --scheme epay-v2 --data \'pid=1001&out_trade_no=T1&timestamp=1700000000\' --private-key merchant.pem',
  ]

  static flags = {
    data: Flags.string({description: 'the JSON body (@file, - for stdin, or inline)', required: true}),
    profile: profileFlags.profile,
    'private-key': Flags.string({description: 'merchant private key file (PEM or Base64, PKCS#8 or PKCS#1)'}),
    scheme: Flags.string({
      description: 'signing rule: unipay (the /unipay/* JSON rule), epay-v1 (MD5 with the MD5 key) or epay-v2 (RSA) of the compatibility module, whose --data is a JSON object or a query string',
      options: ['unipay', 'epay-v1', 'epay-v2'],
      default: 'unipay',
    }),
    'md5-key-file': Flags.string({description: 'epay-v1: file holding the MD5 key (default: the profile\'s md5Key); never printed'}),
    'md5-key-form': Flags.string({description: 'epay-v1: append the MD5 key directly (the rule) or as &key=KEY (default: the profile\'s md5KeyAppendForm, else direct)', options: ['direct', 'key-param']}),
  }

  async run(): Promise<SignResult> {
    const {flags} = await this.parse(Sign)
    const unsigned: Unsigned =
      flags.scheme === 'epay-v1' || flags.scheme === 'epay-v2' ? {scheme: flags.scheme, params: await readEpayParams(flags.data)} : {scheme: 'unipay', body: readJsonData(flags.data)}
    const result = await signUnsigned(unsigned, {privateKey: () => this.privateKey(flags), md5Key: () => this.md5Key(flags)})
    return this.emit(result, async () => {
      if (!this.io.stdoutTty) return this.io.out(`${result.canonicalString}\n${result.signature}`)
      const {renderRecord} = await import('../output/table.js')
      const rows: [string, string][] = [['string to sign', result.canonicalString], ['signature', result.signature]]
      if (result.signType) {
        rows.push(['rule', result.signType === 'MD5' ? `lower-case hex MD5 of the string with the MD5 key appended ${result.md5KeyAppended}` : 'SHA256withRSA, Base64'])
      }
      this.io.out(renderRecord(rows, true))
    })
  }

  private async md5Key(flags: {'md5-key-file'?: string; 'md5-key-form'?: string; profile?: string}): Promise<{key: string; form: 'direct' | 'param'}> {
    const file = flags['md5-key-file']
    // The profile is only read when it is needed: reading the local one starts the sandbox.
    const profile = !file || flags.profile ? await this.resolveProfile(flags) : undefined
    const key = file ? readMd5KeyFile(file) : profile?.settings.md5Key
    if (!key) throw new UsageError(NO_MD5_KEY)
    return {key, form: (flags['md5-key-form'] ?? profile?.settings.md5KeyAppendForm) === 'key-param' ? 'param' : 'direct'}
  }

  private async privateKey(flags: {'private-key'?: string; profile?: string}) {
    const key = flags['private-key'] ? await readKeyFile(flags['private-key'], 'private', '--private-key') : (await this.resolveProfile(flags)).privateKey
    if (!key) throw new UsageError('no private key: pass --private-key FILE or set one in the profile')
    return key
  }
}
