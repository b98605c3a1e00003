import {Flags} from '@oclif/core'
import {BaseCommand, profileFlags} from '../cli/base.js'
import {readJsonData, readText} from '../cli/input.js'
import {readEpayParams} from '../cli/epay.js'
import {epayStringToSign, signMd5, signRsa} from '../protocol/epay.js'
import {ConfigError, UsageError} from '../errors.js'
import {renderRecord} from '../output/table.js'
import {canonicalString} from '../protocol/canonical.js'
import {KeyFormatError, loadPrivateKey} from '../protocol/keys.js'
import {signString} from '../protocol/signature.js'

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

  async run(): Promise<void> {
    const {flags} = await this.parse(Sign)
    if (flags.scheme === 'epay-v1' || flags.scheme === 'epay-v2') return this.epay(flags)
    const body = readJsonData(flags.data)
    const key = flags['private-key'] ? readKeyFile(flags['private-key']) : (await this.resolveProfile(flags)).privateKey
    if (!key) throw new UsageError('no private key: pass --private-key FILE or set one in the profile')
    const text = canonicalString(body)
    const signature = signString(text, key)
    await this.emit({canonicalString: text, signature}, () => {
      if (this.io.stdoutTty) this.io.out(renderRecord([['string to sign', text], ['signature', signature]], true))
      else this.io.out(`${text}\n${signature}`)
    })
  }

  /** The compatibility module's rules: the same selection, MD5 with the key appended (V1) or RSA (V2). */
  private async epay(flags: {scheme: string; data: string; profile?: string; 'private-key'?: string; 'md5-key-file'?: string; 'md5-key-form'?: string}): Promise<void> {
    const params = readEpayParams(flags.data)
    const text = epayStringToSign(params)
    let result: Record<string, string>
    if (flags.scheme === 'epay-v1') {
      const file = flags['md5-key-file']
      // The profile is only read when it is needed: reading the local one starts the sandbox.
      const profile = !file || flags.profile ? await this.resolveProfile(flags) : undefined
      const md5Key = file ? readText(`@${file}`, '--md5-key-file').trim() : profile?.settings.md5Key
      if (!md5Key) throw new UsageError('no MD5 key: pass --md5-key-file FILE or set one in the profile (printf %s "$MD5_KEY" | unipay profile set md5Key -)')
      const form = (flags['md5-key-form'] ?? profile?.settings.md5KeyAppendForm) === 'key-param' ? 'param' : 'direct'
      result = {canonicalString: text, signature: signMd5(params, md5Key, form), signType: 'MD5', md5KeyAppended: form === 'param' ? '&key=KEY' : 'directly'}
    } else {
      const key = flags['private-key'] ? readKeyFile(flags['private-key']) : (await this.resolveProfile(flags)).privateKey
      if (!key) throw new UsageError('no private key: pass --private-key FILE or set one in the profile')
      result = {canonicalString: text, signature: signRsa(params, key), signType: 'RSA'}
    }
    await this.emit(result, () => {
      const note = result.signType === 'MD5' ? `lower-case hex MD5 of the string with the MD5 key appended ${result.md5KeyAppended}` : 'SHA256withRSA, Base64'
      if (this.io.stdoutTty) this.io.out(renderRecord([['string to sign', text], ['signature', result.signature], ['rule', note]], true))
      else this.io.out(`${text}\n${result.signature}`)
    })
  }
}

function readKeyFile(file: string) {
  try {
    return loadPrivateKey(readText(`@${file}`, '--private-key'))
  } catch (error) {
    if (error instanceof KeyFormatError) throw new ConfigError(`${file}: ${error.message}`)
    throw error
  }
}
