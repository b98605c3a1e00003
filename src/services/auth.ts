// Channel authorization: the signed generate-auth-url, and the unsigned code exchange (`auth`
// returns the AuthResult; `auth-and-set` keeps the openId in the platform session instead).
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {AuthResult, AuthUrlAnswer} from '../protocol/answers.js'
import {unsignedCall, type UnsignedResult} from '../client/unsigned.js'
import {endpoints, unsignedEndpoints} from '../protocol/endpoints.js'
import type {CallOptions} from './call.js'

export async function generateAuthUrl(client: ClientConfig, fields: Record<string, unknown>, options: CallOptions = {}): Promise<CallResult<AuthUrlAnswer>> {
  return call(client, endpoints.generateAuthUrl, fields, options)
}

export async function exchangeAuthCode(
  client: ClientConfig,
  fields: Record<string, unknown>,
  options: CallOptions & {set?: boolean} = {},
): Promise<UnsignedResult<AuthResult | null>> {
  // auth-and-set answers no AuthResult: the platform keeps the openId
  return unsignedCall<AuthResult | null>(client, options.set ? unsignedEndpoints.authAndSet : unsignedEndpoints.auth, fields, options)
}
