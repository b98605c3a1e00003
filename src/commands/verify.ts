import type {KeyObject} from 'node:crypto'
import {createPublicKey} from 'node:crypto'
import {Flags} from '@oclif/core'
import {BaseCommand, profileFlags} from '../cli/base.js'
import {readJsonData, readText} from '../cli/input.js'
import {ConfigError, SignatureError, UsageError} from '../errors.js'
import {renderRecord} from '../output/table.js'
import {diagnoseSignature} from '../protocol/diagnose.js'
import {keyFingerprint, KeyFormatError, loadPublicKey} from '../protocol/keys.js'

export default class Verify extends BaseCommand {
  static summary = 'Check the signature of a response, callback or request, and explain a failure'
  static description =
    'Verifies the body\'s sign over the /unipay/* string to sign. Exit 0 when it verifies; exit 3 when not, naming the difference that explains it: a field added or dropped, empty or null values handled differently, a number reformatted, key order, or the wrong key. Without --public-key: the profile\'s platform public key (or, with --request, the merchant public key of the profile\'s private key).'

  static examples = [
    '<%= config.bin %> verify --data @response.json',
    'pbpaste | <%= config.bin %> verify --data - --public-key platform.pem --json',
    '<%= config.bin %> verify --request --data @request.json',
  ]

  static flags = {
    data: Flags.string({description: 'the raw JSON body as received (@file, - for stdin, or inline)', required: true}),
    'public-key': Flags.string({description: 'public key file to verify with (PEM or Base64, SPKI or PKCS#1)'}),
    request: Flags.boolean({description: 'the body is a request signed by the merchant key'}),
    profile: profileFlags.profile,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Verify)
    const body = readJsonData(flags.data)
    if (typeof body.sign !== 'string' || body.sign === '') throw new UsageError('the body has no sign field to verify')
    // The profile is only read when it is needed: reading the local one starts the sandbox.
    const profile = !flags['public-key'] || flags.profile ? await this.resolveProfile(flags) : undefined
    const merchantPublic = profile?.privateKey ? createPublicKey(profile.privateKey) : undefined
    const platformPublic = profile?.platformKey
    const key = flags['public-key'] ? readPublicKeyFile(flags['public-key']) : flags.request ? merchantPublic : platformPublic
    const candidates = [
      {name: 'the merchant key of the profile', key: merchantPublic},
      {name: 'the platform key of the profile', key: platformPublic},
    ]
    const otherKeys = candidates.filter(
      (c): c is {name: string; key: KeyObject} => c.key !== undefined && key !== undefined && keyFingerprint(c.key) !== keyFingerprint(key),
    )
    if (!key) throw new UsageError('no public key: pass --public-key FILE or set one in the profile')
    const diagnosis = diagnoseSignature({body, signature: body.sign, key, otherKeys})
    const details = {verified: diagnosis.verified, key: keyFingerprint(key), canonicalString: diagnosis.expectedString, explanation: diagnosis.explanation, matchingString: diagnosis.matchingString}
    if (!diagnosis.verified) {
      const error = new SignatureError(`signature does not verify: ${diagnosis.explanation}`)
      error.details = details
      error.hint = [
        `string to sign by the rule: ${diagnosis.expectedString}`,
        ...(diagnosis.matchingString && diagnosis.matchingString !== diagnosis.expectedString ? [`string the signature matches: ${diagnosis.matchingString}`] : []),
      ].join('\n')
      throw error
    }
    await this.emit(details, () =>
      this.io.out(renderRecord([['verified', `yes, with key ${details.key}`], ['string to sign', diagnosis.expectedString]], this.io.stdoutTty)),
    )
  }
}

function readPublicKeyFile(file: string): KeyObject {
  try {
    return loadPublicKey(readText(`@${file}`, '--public-key'))
  } catch (error) {
    if (error instanceof KeyFormatError) throw new ConfigError(`${file}: ${error.message}`)
    throw error
  }
}
