import {Flags} from '@oclif/core'
import {BaseCommand, profileFlags} from '../cli/base.js'
import {readJsonData, readText} from '../cli/input.js'
import {ConfigError, UsageError} from '../errors.js'
import {renderRecord} from '../output/table.js'
import {canonicalString} from '../protocol/canonical.js'
import {KeyFormatError, loadPrivateKey} from '../protocol/keys.js'
import {signString} from '../protocol/signature.js'

export default class Sign extends BaseCommand {
  static summary = 'Print the string to sign and the signature of any JSON body'
  static description =
    'Applies the /unipay/* rule (flatten, skip null, keep empty strings, sort whole keys, drop sign) and signs with SHA256withRSA. Nothing is added to the body and nothing is sent. Without --private-key the active profile\'s key is used. Stable output: --json gives {"canonicalString", "signature"}; piped output is two lines.'

  static examples = ['<%= config.bin %> sign --data @body.json', 'cat body.json | <%= config.bin %> sign --data - --private-key merchant.pem --json']

  static flags = {
    data: Flags.string({description: 'the JSON body (@file, - for stdin, or inline)', required: true}),
    profile: profileFlags.profile,
    'private-key': Flags.string({description: 'merchant private key file (PEM or Base64, PKCS#8 or PKCS#1)'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Sign)
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
}

function readKeyFile(file: string) {
  try {
    return loadPrivateKey(readText(`@${file}`, '--private-key'))
  } catch (error) {
    if (error instanceof KeyFormatError) throw new ConfigError(`${file}: ${error.message}`)
    throw error
  }
}
