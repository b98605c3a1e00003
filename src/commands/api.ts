import {apiFlags, Args, BaseCommand, Flags} from '../cli/base.js'
import {fieldPairs, readJsonData} from '../cli/input.js'
import {stringifyJson} from '../protocol/json.js'
import {callPath} from '../services/api.js'

/** Any endpoint's `data`, plain: its shape is the endpoint's, open here; a dry run, the signed request. */
export type ApiResult = unknown

export default class Api extends BaseCommand {
  static summary = 'Make any signed /unipay/* call, for endpoints and fields not wrapped yet'
  static description =
    'Adds the common fields, signs, sends, verifies and prints the answer as JSON. Fields come from --data and from -f (string) / -F (typed: numbers, true/false, null) pairs; later ones win. Known endpoints are checked against the spec\'s rules before sending.\n\n--unchecked signs and sends exactly what was given, to see how a server answers it: no rule applied (-f currency=CNY, a key with a dot, a control character), and a common field given (reqId, reqTime, nonceStr, mchNo, appId) sent instead of a fresh one. Only to a sandbox profile (the local one or environment sandbox): a production profile refuses it (exit 2), since bad input must never reach a real platform. The answer is verified as always.'

  static examples = [
    '<%= config.bin %> api /unipay/query/pay-order -f bizOrderNo=P2025112200001',
    '<%= config.bin %> api /unipay/pay --data @order.json',
    '<%= config.bin %> api /unipay/close -f bizOrderNo=P1 -F useCancel=true',
    '<%= config.bin %> api /unipay/pay --unchecked -f bizOrderNo=P1 -f title=T -F amount=100 -f currency=CNY',
  ]

  static args = {path: Args.string({description: 'endpoint path, e.g. /unipay/query/pay-order', required: true})}
  static flags = {
    ...apiFlags,
    data: Flags.string({description: 'request fields as JSON (@file, - for stdin)'}),
    field: Flags.string({char: 'f', description: 'a string field, key=value', multiple: true}),
    'typed-field': Flags.string({char: 'F', description: 'a typed field, key=value (number, true/false, null, or string)', multiple: true}),
    'raw-path': Flags.boolean({description: 'allow a path outside /unipay/ (still under the profile\'s base address)'}),
    unchecked: Flags.boolean({description: 'sign and send the fields exactly as given, values the spec forbids and common fields included (a sandbox profile only)'}),
  }

  async run(): Promise<ApiResult> {
    const {args, flags} = await this.parse(Api)
    const fields = fieldPairs(flags.data ? readJsonData(flags.data) : {}, flags.field, flags['typed-field'])
    const context = await this.context(flags)
    const {profile} = context
    const unchecked = flags.unchecked ? {environment: profile.environment, profile: profile.name} : undefined
    if (unchecked && unchecked.environment !== 'production') this.notice('--unchecked: the fields are signed and sent as given, no rule of the spec applied')
    const result = await callPath(context.client, args.path, fields, {rawPath: flags['raw-path'], dryRun: flags['dry-run'], unchecked})
    return this.emitCall(result, (data) => this.io.out(stringifyJson(data, 2)))
  }
}
