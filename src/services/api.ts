// `api`: any signed call by its path, for endpoints and fields not wrapped yet. A known endpoint
// keeps its rules (endpointForPath); the path may name an endpoint under the profile's base
// address and nothing else.
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import {UsageError} from '../errors.js'
import {endpointForPath} from '../protocol/endpoints.js'
import type {CallOptions} from './call.js'

export async function callPath(client: ClientConfig, path: string, fields: Record<string, unknown>, options: CallOptions & {rawPath?: boolean} = {}): Promise<CallResult> {
  checkApiPath(path, options.rawPath ?? false)
  return call(client, endpointForPath(path), fields, options)
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
