import {apiFlags, Args, BaseCommand, Flags} from '../cli/base.js'
import {fieldPairs, readJsonData} from '../cli/input.js'
import {stringifyJson} from '../protocol/json.js'
import {callPath} from '../services/api.js'

/** Any endpoint's `data`, plain: its shape is the endpoint's, open here; a dry run, the signed request. */
export type ApiResult = unknown

export default class Api extends BaseCommand {
  static summary = 'Make any signed /unipay/* call, for endpoints and fields not wrapped yet'
  static description =
    'Adds the common fields, signs, sends, verifies and prints the answer as JSON. Fields come from --data and from -f (string) / -F (typed: numbers, true/false, null) pairs; later ones win. Known endpoints are checked against the spec\'s rules before sending.'

  static examples = [
    '<%= config.bin %> api /unipay/query/pay-order -f bizOrderNo=P2025112200001',
    '<%= config.bin %> api /unipay/pay --data @order.json',
    '<%= config.bin %> api /unipay/close -f bizOrderNo=P1 -F useCancel=true',
  ]

  static args = {path: Args.string({description: 'endpoint path, e.g. /unipay/query/pay-order', required: true})}
  static flags = {
    ...apiFlags,
    data: Flags.string({description: 'request fields as JSON (@file, - for stdin)'}),
    field: Flags.string({char: 'f', description: 'a string field, key=value', multiple: true}),
    'typed-field': Flags.string({char: 'F', description: 'a typed field, key=value (number, true/false, null, or string)', multiple: true}),
    'raw-path': Flags.boolean({description: 'allow a path outside /unipay/ (still under the profile\'s base address)'}),
  }

  async run(): Promise<ApiResult> {
    const {args, flags} = await this.parse(Api)
    const fields = fieldPairs(flags.data ? readJsonData(flags.data) : {}, flags.field, flags['typed-field'])
    const context = await this.context(flags)
    const result = await callPath(context.client, args.path, fields, {rawPath: flags['raw-path'], dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => this.io.out(stringifyJson(data, 2)))
  }
}
