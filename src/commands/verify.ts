import {createPublicKey} from 'node:crypto'
import {BaseCommand, Flags, profileFlags} from '../cli/base.js'
import {readJsonData, readKeyFile, readMd5KeyFile, readText} from '../cli/input.js'
import {UsageError} from '../errors.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {verifySigned, type KeySource, type Outcome, type Signed} from '../services/verify.js'


/** The signature verified: with which key, over which string. A failure is an error (exit 3), its outcome in the error's details. */
export type VerifyResult = Outcome

export default class Verify extends BaseCommand {
  static summary = 'Check the signature of a response, callback or request, and explain a failure'
  static description =
    'Verifies the body\'s sign over the /unipay/* string to sign. Exit 0 when it verifies; exit 3 when not, naming the difference that explains it: a field added or dropped, empty or null values handled differently, a number reformatted, key order, or the wrong key. Without --public-key: the profile\'s platform public key (or, with --request, the merchant public key of the profile\'s private key).\n\nWith --callback, --data is a saved callback: a system JSON body, or an easy_pay notification as a query string or a whole URL (anything not starting with `{`). An easy_pay MD5 sign is checked with the profile\'s md5Key or --md5-key-file, an RSA sign with the platform key; a failure is explained the same way (the MD5 key appended as `&key=`, empty values kept, values URL-encoded, sign_type signed, another key). An RSA (V2) notification whose timestamp is more than 300 s from this machine\'s clock fails too (exit 3, with its age): V2 clients refuse it. The MD5 key is never printed.\n\nWith --scheme epay-v2 the same 300 s window applies to answers, notifications and (--request) requests: a signature that holds on a timestamp outside it is refused for its age (exit 3), as V2 clients and the platform refuse it. A JSON answer\'s data (any nested value) is outside the V2 signature: it is left out, with a warning.'

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

  async run(): Promise<VerifyResult> {
    const {flags} = await this.parse(Verify)
    const epay = flags.scheme === 'epay-v1' || flags.scheme === 'epay-v2'
    if (flags['md5-key-file'] && !flags.callback && flags.scheme !== 'epay-v1') throw new UsageError('--md5-key-file goes with --callback or --scheme epay-v1')
    // Read once (stdin cannot be read twice); JSON text is then handed on as inline data.
    const input = flags.callback && !epay ? readText(flags.data, '--data').replace(/^\uFEFF/, '').trim() : flags.data
    // The compatibility module's parsers (and the API client cli/epay.js brings along) load only
    // for its inputs: a /unipay/* body is the common case (docs/performance.md, "Dependencies and start-up").
    let signed: Signed
    if (epay) {
      const {params, nested} = (await import('../cli/epay.js')).readEpayParams(input)
      signed = {scheme: flags.scheme as 'epay-v1' | 'epay-v2', params}
      // what an answer carries beside its signed flat fields: shown by tools, vouched for by nothing
      if (nested.length > 0) this.warning(`${nested.join(', ')} ${nested.length === 1 ? 'is' : 'are'} outside the ${flags.scheme} signature, which covers the flat fields only: nothing in ${nested.length === 1 ? 'it' : 'them'} is verified`)
    } else {
      signed = flags.callback && !input.startsWith('{')
        ? {scheme: 'easy_pay', params: (await import('../protocol/callback.js')).parseEasyPayInput(input)}
        : {scheme: 'unipay', body: readJsonData(input)}
    }
    // judged as its receiver would judge it now: a V2 timestamp outside the window fails
    const outcome = await verifySigned(signed, await this.keySource(flags), {asRequest: flags.request, callback: flags.callback})
    return this.emit(outcome, async () => {
      const {renderRecord} = await import('../output/table.js')
      this.io.out(renderRecord([['verified', `yes, with key ${outcome.key}`], ['string to sign', outcome.canonicalString]], this.io.stdoutTty))
    })
  }

  /** Keys for the check: --public-key / --md5-key-file, else the profile's, read only when asked. */
  private async keySource(flags: {'public-key'?: string; 'md5-key-file'?: string; profile?: string}): Promise<KeySource> {
    // With --public-key and no --profile the profile is not read: reading the local one starts the sandbox.
    const useProfile = !flags['public-key'] || flags.profile !== undefined
    let profile: Promise<ResolvedProfile> | undefined
    const resolved = () => (profile ??= this.resolveProfile(flags))
    return {
      given: flags['public-key'] ? ((await readKeyFile(flags['public-key'], 'public', '--public-key'))) : undefined,
      profile: async () => {
        if (!useProfile) return {}
        const {privateKey, platformKey} = await resolved()
        return {merchantPublic: privateKey ? createPublicKey(privateKey) : undefined, platformPublic: platformKey}
      },
      md5Key: async () => (flags['md5-key-file'] ? readMd5KeyFile(flags['md5-key-file']) : (await resolved()).settings.md5Key),
    }
  }
}
