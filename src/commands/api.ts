import {Args, Flags} from '@oclif/core'
import {apiFlags, BaseCommand} from '../cli/base.js'
import {readJsonData} from '../cli/input.js'
import {call} from '../client/pipeline.js'
import {UsageError} from '../errors.js'
import {endpointForPath} from '../protocol/endpoints.js'
import {stringifyJson} from '../protocol/json.js'

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
    checkApiPath(args.path, flags['raw-path'])
    const fields: Record<string, unknown> = flags.data ? readJsonData(flags.data) : {}
    for (const pair of flags.field ?? []) {
      const [key, value] = splitPair(pair, '-f')
      fields[key] = value
    }
    for (const pair of flags['typed-field'] ?? []) {
      const [key, value] = splitPair(pair, '-F')
      fields[key] = typed(value)
    }
    const context = await this.context(flags)
    const result = await call(context.client, endpointForPath(args.path), fields, {dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => this.io.out(stringifyJson(data, 2)))
  }
}

/** The path names an endpoint under the base address, and nothing else: no way up, no query, no other host. */
function checkApiPath(path: string, raw: boolean): void {
  if (!path.startsWith('/')) throw new UsageError(`path must start with /, e.g. /unipay/ping (got ${path})`)
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    throw new UsageError(`path ${path}: not a valid URL path (a stray %)`)
  }
  if (/[?#\\]/.test(decoded) || decoded.startsWith('//')) throw new UsageError(`path ${path}: give the endpoint path only, without a query, fragment, backslash or host`)
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.')) throw new UsageError(`path ${path}: "." and ".." segments are refused: they would leave the API`)
  if (!raw && !path.startsWith('/unipay/')) throw new UsageError(`path ${path} is outside /unipay/: pass --raw-path to send it anyway`)
}

function splitPair(pair: string, flag: string): [string, string] {
  const at = pair.indexOf('=')
  if (at <= 0) throw new UsageError(`${flag} ${pair}: expected key=value`)
  return [pair.slice(0, at), pair.slice(at + 1)]
}

function typed(value: string): unknown {
  if (value === 'true') return true
  if (value === 'false') return false
  if (value === 'null') return null
  if (/^-?\d+(\.\d+)?$/.test(value) && Number.isSafeInteger(Math.trunc(Number(value)))) return Number(value)
  return value
}
