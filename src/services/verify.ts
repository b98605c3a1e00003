// `verify`: does a body's sign verify, and if not, which difference explains it. The keys come
// from a source the command provides, asked only for what the body's scheme needs (reading the
// local profile starts the sandbox, so it is not read without need). What explains a failure
// (diagnosis, the easy_pay rules) is loaded only when it is needed: a body that verifies loads
// neither (docs/performance.md, "Dependencies and start-up").
import type {KeyObject} from 'node:crypto'
import {NO_MD5_KEY, SignatureError, UsageError} from '../errors.js'
import type {CallbackKeys} from '../protocol/callback.js'
import {canonicalString} from '../protocol/canonical.js'
import {foreignInputProblem} from '../protocol/foreign-input.js'
import type {JsonObject} from '../protocol/json.js'
import {keyFingerprint} from '../protocol/keys.js'
import {verifyString} from '../protocol/signature.js'

export interface Outcome {
  verified: boolean
  /** The signature holds but the parameters are refused all the same: a V2 timestamp outside the window. */
  signatureHolds?: true
  key: string
  canonicalString: string
  explanation?: string
  matchingString?: string
  [extra: string]: unknown
}

export interface KeySource {
  /** A key given for this check (--public-key), if any. */
  given?: KeyObject
  /** The profile's keys: its merchant public key and the platform key. */
  profile(): Promise<{merchantPublic?: KeyObject; platformPublic?: KeyObject}>
  md5Key(): Promise<string | undefined>
}

/** The key to verify with, and the others the signer may have used by mistake. */
async function publicKeys(source: KeySource, asRequest: boolean): Promise<{key: KeyObject; otherKeys: {name: string; key: KeyObject}[]}> {
  const {merchantPublic, platformPublic} = await source.profile()
  const key = source.given ?? (asRequest ? merchantPublic : platformPublic)
  if (!key) throw new UsageError('no public key: pass --public-key FILE or set one in the profile')
  const candidates = [
    {name: 'the merchant key of the profile', key: merchantPublic},
    {name: 'the platform key of the profile', key: platformPublic},
  ]
  const otherKeys = candidates.filter((c): c is {name: string; key: KeyObject} => c.key !== undefined && keyFingerprint(c.key) !== keyFingerprint(key))
  return {key, otherKeys}
}

/** A /unipay/* body: a response, callback or (asRequest) request. */
async function verifyUnipay(body: JsonObject, source: KeySource, asRequest: boolean, callback = false): Promise<Outcome> {
  if (typeof body.sign !== 'string' || body.sign === '') throw new UsageError('the body has no sign field to verify')
  const {key, otherKeys} = await publicKeys(source, asRequest)
  // The rule's string, as diagnoseSignature builds it; it explains only a failure.
  const expectedString = canonicalString(body)
  // what the sandbox, the CLI and `listen` refuse whatever its signature says (protocol-notes section 1)
  const foreign = foreignInputProblem(body, {flatData: callback})
  if (foreign) return {verified: false, key: keyFingerprint(key), canonicalString: expectedString, explanation: `refused before any signature check: ${foreign.field}: ${foreign.message}`}
  if (verifyString(expectedString, body.sign, key)) return {verified: true, key: keyFingerprint(key), canonicalString: expectedString}
  const {diagnoseSignature} = await import('../protocol/diagnose.js')
  const diagnosis = diagnoseSignature({body, signature: body.sign, key, otherKeys})
  return {verified: diagnosis.verified, key: keyFingerprint(key), canonicalString: diagnosis.expectedString, explanation: diagnosis.explanation, matchingString: diagnosis.matchingString}
}

/**
 * Compatibility-module parameters: an easy_pay notification, or a request or answer of --scheme.
 * Judged as received `now`: RSA (V2) ones outside the timestamp window fail as their receivers
 * would refuse them (a V2 client an answer or notification, the platform a request).
 */
async function verifyEasyPay(params: Record<string, string>, source: KeySource, asRequest: boolean, now: Date): Promise<Outcome> {
  if (!params.sign) throw new UsageError('the callback has no sign parameter to verify')
  const {checkEasyPayCallback, easyPaySignType, staleEasyPayTimestamp} = await import('../protocol/callback.js')
  const signType = easyPaySignType(params)
  if (!signType) throw new UsageError(`the callback's sign_type "${params.sign_type}" is neither MD5 nor RSA`)
  let keys: CallbackKeys
  if (signType === 'MD5') {
    const md5Key = await source.md5Key()
    if (!md5Key) throw new UsageError(NO_MD5_KEY)
    keys = {md5Key}
  } else {
    const {key, otherKeys} = await publicKeys(source, asRequest)
    keys = {platformKey: key, otherKeys}
  }
  const check = checkEasyPayCallback(params, keys)
  const stale = check.verified && signType === 'RSA' ? staleEasyPayTimestamp(params, now, asRequest ? 'merchant' : 'platform') : undefined
  return {
    verified: check.verified && !stale,
    ...(stale ? {signatureHolds: true as const} : {}),
    protocol: 'easy_pay',
    signType,
    key: check.key ?? '',
    canonicalString: check.expectedString,
    explanation: stale ?? check.reason,
    matchingString: check.matchingString,
  }
}

/** --scheme epay-v1|epay-v2: the scheme fixes the sign type. */
async function verifyEpayScheme(scheme: 'epay-v1' | 'epay-v2', params: Record<string, string>, source: KeySource, asRequest: boolean, now: Date): Promise<Outcome> {
  const want = scheme === 'epay-v1' ? 'MD5' : 'RSA'
  if (params.sign_type && params.sign_type.toUpperCase() !== want) {
    throw new UsageError(`sign_type "${params.sign_type}" does not belong to ${scheme}, which signs with ${want} only`)
  }
  return {...(await verifyEasyPay({...params, sign_type: params.sign_type || want}, source, asRequest, now)), protocol: scheme}
}

/** What `verify` checks, as the command read it. */
export type Signed =
  | {scheme: 'unipay'; body: JsonObject}
  | {scheme: 'easy_pay'; params: Record<string, string>}
  | {scheme: 'epay-v1' | 'epay-v2'; params: Record<string, string>}

/**
 * `verify`: the outcome when the signature verifies; otherwise a SignatureError (exit 3) naming
 * the difference that explains it, the outcome in its details. `asRequest`: signed by the
 * merchant key. `callback`: a /unipay/* body is a callback (its data flat). `now`: when the body
 * is judged received (a V2 one outside the timestamp window fails, as its receiver would refuse it).
 */
export async function verifySigned(signed: Signed, source: KeySource, {asRequest = false, callback = false, now = new Date()}: {asRequest?: boolean; callback?: boolean; now?: Date} = {}): Promise<Outcome> {
  const outcome =
    signed.scheme === 'unipay'
      ? await verifyUnipay(signed.body, source, asRequest, callback)
      : signed.scheme === 'easy_pay'
        ? await verifyEasyPay(signed.params, source, asRequest, now)
        : await verifyEpayScheme(signed.scheme, signed.params, source, asRequest, now)
  if (outcome.verified) return outcome
  const error = new SignatureError(outcome.signatureHolds ? `refused for its age: ${outcome.explanation}` : `signature does not verify: ${outcome.explanation}`)
  error.details = outcome
  error.hint = [
    `string to sign by the rule: ${outcome.canonicalString}`,
    ...(outcome.matchingString && outcome.matchingString !== outcome.canonicalString ? [`string the signature matches: ${outcome.matchingString}`] : []),
  ].join('\n')
  throw error
}
