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

export function signUnipay(body: JsonObject, key: KeyObject): Signed {
  const text = canonicalString(body)
  return {canonicalString: text, signature: signString(text, key)}
}

/** V1: lower-case hex MD5 with the MD5 key appended directly (the rule) or as `&key=`. */
export function signEpayV1(params: Record<string, string>, md5Key: string, form: 'direct' | 'param'): Signed {
  return {
    canonicalString: epayStringToSign(params),
    signature: signMd5(params, md5Key, form),
    signType: 'MD5',
    md5KeyAppended: form === 'param' ? '&key=KEY' : 'directly',
  }
}

/** V2: SHA256withRSA over the V2 selection (whitespace-only values dropped too), nothing appended. */
export function signEpayV2(params: Record<string, string>, key: KeyObject): Signed {
  return {canonicalString: epayV2StringToSign(params), signature: signRsa(params, key), signType: 'RSA'}
}
