import type {KeyObject} from 'node:crypto'
import {createPublicKey} from 'node:crypto'
import {Flags} from '@oclif/core'
import {BaseCommand, profileFlags} from '../cli/base.js'
import {readJsonData, readText} from '../cli/input.js'
import {readEpayParams} from '../cli/epay.js'
import {ConfigError, SignatureError, UsageError} from '../errors.js'
import {renderRecord} from '../output/table.js'
import {checkEasyPayCallback, easyPaySignType, parseEasyPayInput, type CallbackKeys} from '../protocol/callback.js'
import {diagnoseSignature} from '../protocol/diagnose.js'
import {keyFingerprint, KeyFormatError, loadPublicKey} from '../protocol/keys.js'

interface Outcome {
  verified: boolean
  key: string
  canonicalString: string
  explanation?: string
  matchingString?: string
  [extra: string]: unknown
}

export default class Verify extends BaseCommand {
  static summary = 'Check the signature of a response, callback or request, and explain a failure'
  static description =
    'Verifies the body\'s sign over the /unipay/* string to sign. Exit 0 when it verifies; exit 3 when not, naming the difference that explains it: a field added or dropped, empty or null values handled differently, a number reformatted, key order, or the wrong key. Without --public-key: the profile\'s platform public key (or, with --request, the merchant public key of the profile\'s private key).\n\nWith --callback, --data is a saved callback: a system JSON body, or an easy_pay notification as a query string or a whole URL (anything not starting with `{`). An easy_pay MD5 sign is checked with the profile\'s md5Key or --md5-key-file, an RSA sign with the platform key; a failure is explained the same way (the MD5 key appended as `&key=`, empty values kept, values URL-encoded, sign_type signed, another key). The MD5 key is never printed.'

  static examples = [
    '<%= config.bin %> verify --data @response.json',
    'pbpaste | <%= config.bin %> verify --data - --public-key platform.pem --json',
    '<%= config.bin %> verify --request --data @request.json',
    '<%= config.bin %> verify --callback --data @callback.json',
    '<%= config.bin %> verify --callback --data \'pid=1001&trade_no=...&sign=...&sign_type=MD5\' --md5-key-file md5.key',
    '<%= config.bin %> verify --scheme epay-v2 --data @answer.json',
    '<%= config.bin %> verify --scheme epay-v1 --data @params.json --md5-key-file md5.key',
  ]

  static flags = {
    data: Flags.string({description: 'the raw body as received (@file, - for stdin, or inline); with --callback also a query string or URL', required: true}),
    'public-key': Flags.string({description: 'public key file to verify with (PEM or Base64, SPKI or PKCS#1)'}),
    request: Flags.boolean({description: 'the body is a request signed by the merchant key', exclusive: ['callback']}),
    callback: Flags.boolean({description: 'the body is a callback: system JSON, or an easy_pay query string or URL'}),
    'md5-key-file': Flags.string({description: 'file holding the MD5 key for an easy_pay MD5 callback or --scheme epay-v1 (default: the profile\'s md5Key)'}),
    scheme: Flags.string({
      description: 'signing rule: unipay (/unipay/* JSON), or the compatibility module\'s epay-v1 (MD5) or epay-v2 (RSA; an answer or notification with the platform key, a request with --request), whose --data is a JSON object or a query string',
      options: ['unipay', 'epay-v1', 'epay-v2'],
      default: 'unipay',
    }),
    profile: profileFlags.profile,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Verify)
    const epay = flags.scheme === 'epay-v1' || flags.scheme === 'epay-v2'
    if (flags['md5-key-file'] && !flags.callback && flags.scheme !== 'epay-v1') throw new UsageError('--md5-key-file goes with --callback or --scheme epay-v1')
    // Read once (stdin cannot be read twice); JSON text is then handed on as inline data.
    const input = flags.callback && !epay ? readText(flags.data, '--data').replace(/^\uFEFF/, '').trim() : flags.data
    const outcome = epay
      ? await this.epayScheme(flags.scheme as 'epay-v1' | 'epay-v2', input, flags)
      : flags.callback && !input.startsWith('{') ? await this.easyPay(input, flags) : await this.system(input, flags)
    if (!outcome.verified) {
      const error = new SignatureError(`signature does not verify: ${outcome.explanation}`)
      error.details = outcome
      error.hint = [
        `string to sign by the rule: ${outcome.canonicalString}`,
        ...(outcome.matchingString && outcome.matchingString !== outcome.canonicalString ? [`string the signature matches: ${outcome.matchingString}`] : []),
      ].join('\n')
      throw error
    }
    await this.emit(outcome, () =>
      this.io.out(renderRecord([['verified', `yes, with key ${outcome.key}`], ['string to sign', outcome.canonicalString]], this.io.stdoutTty)),
    )
  }

  private async system(data: string, flags: {request?: boolean; 'public-key'?: string; profile?: string}): Promise<Outcome> {
    const body = readJsonData(data)
    if (typeof body.sign !== 'string' || body.sign === '') throw new UsageError('the body has no sign field to verify')
    const {key, otherKeys} = await this.publicKeys(flags)
    const diagnosis = diagnoseSignature({body, signature: body.sign, key, otherKeys})
    return {verified: diagnosis.verified, key: keyFingerprint(key), canonicalString: diagnosis.expectedString, explanation: diagnosis.explanation, matchingString: diagnosis.matchingString}
  }

  /** --scheme epay-v1|epay-v2: the module's parameters (a request, an answer or a notification) under that scheme's rule. */
  private async epayScheme(scheme: 'epay-v1' | 'epay-v2', data: string, flags: {request?: boolean; 'md5-key-file'?: string; 'public-key'?: string; profile?: string}): Promise<Outcome> {
    const params = readEpayParams(data)
    const want = scheme === 'epay-v1' ? 'MD5' : 'RSA'
    if (params.sign_type && params.sign_type.toUpperCase() !== want) {
      throw new UsageError(`sign_type "${params.sign_type}" does not belong to ${scheme}, which signs with ${want} only`)
    }
    return {...(await this.easyPay({...params, sign_type: params.sign_type || want}, flags)), protocol: scheme}
  }

  private async easyPay(input: string | Record<string, string>, flags: {request?: boolean; 'md5-key-file'?: string; 'public-key'?: string; profile?: string}): Promise<Outcome> {
    const params = typeof input === 'string' ? parseEasyPayInput(input) : input
    if (!params.sign) throw new UsageError('the callback has no sign parameter to verify')
    const signType = easyPaySignType(params)
    if (!signType) throw new UsageError(`the callback's sign_type "${params.sign_type}" is neither MD5 nor RSA`)
    let keys: CallbackKeys
    if (signType === 'MD5') {
      const file = flags['md5-key-file']
      const md5Key = file ? readText(`@${file}`, '--md5-key-file').trim() : (await this.resolveProfile(flags)).settings.md5Key
      if (!md5Key) throw new UsageError('no MD5 key: pass --md5-key-file FILE or set one in the profile (printf %s "$MD5_KEY" | unipay profile set md5Key -)')
      keys = {md5Key}
    } else {
      const {key, otherKeys} = await this.publicKeys(flags)
      keys = {platformKey: key, otherKeys}
    }
    const check = checkEasyPayCallback(params, keys)
    return {
      verified: check.verified,
      protocol: 'easy_pay',
      signType,
      key: check.key ?? '',
      canonicalString: check.expectedString,
      explanation: check.reason,
      matchingString: check.matchingString,
    }
  }

  /** The key to verify with, and the profile's other keys (named in a `wrong key` explanation). */
  private async publicKeys(flags: {request?: boolean; 'public-key'?: string; profile?: string}): Promise<{key: KeyObject; otherKeys: {name: string; key: KeyObject}[]}> {
    // The profile is only read when it is needed: reading the local one starts the sandbox.
    const profile = !flags['public-key'] || flags.profile ? await this.resolveProfile(flags) : undefined
    const merchantPublic = profile?.privateKey ? createPublicKey(profile.privateKey) : undefined
    const platformPublic = profile?.platformKey
    const key = flags['public-key'] ? readPublicKeyFile(flags['public-key']) : flags.request ? merchantPublic : platformPublic
    if (!key) throw new UsageError('no public key: pass --public-key FILE or set one in the profile')
    const candidates = [
      {name: 'the merchant key of the profile', key: merchantPublic},
      {name: 'the platform key of the profile', key: platformPublic},
    ]
    const otherKeys = candidates.filter((c): c is {name: string; key: KeyObject} => c.key !== undefined && keyFingerprint(c.key) !== keyFingerprint(key))
    return {key, otherKeys}
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
