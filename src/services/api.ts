// `api`: any signed call by its path, for endpoints and fields not wrapped yet. A known endpoint
// keeps its rules (endpointForPath), unless `unchecked` sends the fields as given, which only a
// sandbox may receive; the path may name an endpoint under the profile's base address and
// nothing else.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import {UsageError} from '../errors.js'
import {endpointForPath} from '../protocol/endpoints.js'
import type {Environment} from '../profiles/model.js'
import type {CallOptions} from './call.js'

interface ApiOptions extends CallOptions {
  rawPath?: boolean
  /** Sign and send the fields exactly as given, rules not applied: to see how a server answers them. */
  unchecked?: {environment: Environment; profile: string}
}

export async function callPath(client: ClientConfig, path: string, fields: Record<string, unknown>, options: ApiOptions = {}): Promise<CallResult> {
  checkApiPath(path, options.rawPath ?? false)
  const {unchecked} = options
  // what the spec forbids must never reach a real platform: only a sandbox hears it
  if (unchecked?.environment === 'production') {
    throw new UsageError(`--unchecked sends what the spec's rules would refuse: only to a sandbox profile, and ${unchecked.profile} is a production profile`)
  }
  return call(client, endpointForPath(path), fields, {dryRun: options.dryRun, unchecked: unchecked !== undefined})
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
