// `sign`: the string to sign and the signature of a body under each scheme; nothing is sent.
import type {KeyObject} from 'node:crypto'
import {canonicalString} from '../protocol/canonical.js'
import {epayStringToSign, epayV2StringToSign, signMd5, signRsa} from '../protocol/epay.js'
import type {JsonObject} from '../protocol/json.js'
import {signString} from '../protocol/signature.js'

export interface Signed {
  canonicalString: string
  signature: string
  [extra: string]: string
}

function signUnipay(body: JsonObject, key: KeyObject): Signed {
  const text = canonicalString(body)
  return {canonicalString: text, signature: signString(text, key)}
}

/** V1: lower-case hex MD5 with the MD5 key appended directly (the rule) or as `&key=`. */
function signEpayV1(params: Record<string, string>, md5Key: string, form: 'direct' | 'param'): Signed {
  return {
    canonicalString: epayStringToSign(params),
    signature: signMd5(params, md5Key, form),
    signType: 'MD5',
    md5KeyAppended: form === 'param' ? '&key=KEY' : 'directly',
  }
}

/** V2: SHA256withRSA over the V2 selection (whitespace-only values dropped too), nothing appended. */
function signEpayV2(params: Record<string, string>, key: KeyObject): Signed {
  return {canonicalString: epayV2StringToSign(params), signature: signRsa(params, key), signType: 'RSA'}
}

/** What `sign` signs, as the command read it: a /unipay/* body, or compatibility-module parameters. */
export type Unsigned = {scheme: 'unipay'; body: JsonObject} | {scheme: 'epay-v1' | 'epay-v2'; params: Record<string, string>}

/** The keys a scheme may need, each read only when asked (reading the local profile starts the sandbox). */
interface SigningKeys {
  privateKey(): Promise<KeyObject>
  /** V1's MD5 key, and whether it is appended directly (the rule) or as `&key=`. */
  md5Key(): Promise<{key: string; form: 'direct' | 'param'}>
}

/** `sign`: the string to sign under the scheme's rule, and its signature. */
export async function signUnsigned(unsigned: Unsigned, keys: SigningKeys): Promise<Signed> {
  if (unsigned.scheme === 'unipay') return signUnipay(unsigned.body, await keys.privateKey())
  if (unsigned.scheme === 'epay-v2') return signEpayV2(unsigned.params, await keys.privateKey())
  const {key, form} = await keys.md5Key()
  return signEpayV1(unsigned.params, key, form)
}
