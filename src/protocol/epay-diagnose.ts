// Why does an epay sign not verify? Rebuild the string the ways other epay signers commonly do
// (the module's variant of diagnose.ts) and report the variant that verifies. The MD5 key is
// never part of what is returned: strings show where it goes as a placeholder.
import type {KeyObject} from 'node:crypto'
import {joinPairs as join, type Pair} from './canonical.js'
import {MAX_DIAGNOSED_CHARS, MAX_DIAGNOSED_VARIANTS} from './diagnose.js'
import {epayPairs, epayRsaStrings, epayStringToSign, md5Matches, sortByKeyBytes, type EpayParams, type Md5KeyForm} from './epay.js'
import {keyFingerprint} from './keys.js'
import {verifyString} from './signature.js'

export interface EpayDiagnosis {
  verified: boolean
  explanation?: string
  /** The string that the sign does verify against, when a variant matched. */
  matchingString?: string
  expectedString: string
}

interface Variant {
  explanation?: string
  text: string
}

const KEY_PLACEHOLDER = '{MD5 key}'

function variants(params: EpayParams): Variant[] {
  const standard = epayPairs(params)
  const signType = params.sign_type
  const encode = (encoder: (text: string) => string) => join(standard.map(([key, value]): Pair => [key, encoder(value)]))
  const out: Variant[] = [{text: join(standard)}]
  // one string per field is quadratic: bounded as the /unipay/* diagnosis is (diagnose.ts)
  for (const [key] of standard.length <= MAX_DIAGNOSED_VARIANTS ? standard : []) {
    out.push({
      explanation: `field added or dropped: the sign matches without \`${key}\`, so it was added after signing or the signer leaves it out`,
      text: join(standard.filter(([other]) => other !== key)),
    })
  }
  out.push(
    {
      explanation: 'empty value handled differently: the signer kept empty values as `key=`, while the rule skips them',
      text: join(
        sortByKeyBytes(
          Object.entries(params)
            .filter(([key, value]) => key !== 'sign' && key !== 'sign_type' && value !== null && value !== undefined && typeof value !== 'object')
            .map(([key, value]): Pair => [key, String(value)]),
        ),
      ),
    },
    {
      explanation: 'values URL-encoded: the signer encoded values, while the rule uses them decoded',
      text: encode(encodeURIComponent),
    },
    {
      explanation: 'values URL-encoded: the signer form-encoded values (spaces as +), while the rule uses them decoded',
      text: encode((value) => new URLSearchParams({v: value}).toString().slice(2)),
    },
    {
      explanation: 'sign_type included: the signer signed `sign_type` too, while the rule leaves it out',
      text: join(sortByKeyBytes(typeof signType === 'string' && signType !== '' ? [...standard, ['sign_type', signType]] : [...standard])),
    },
  )
  // Variants that coincide with the rule's string explain nothing.
  return out.filter((variant, index) => index === 0 || variant.text !== out[0].text)
}

/** Whitespace a signer may leave after the MD5 key: a key file read whole, or a pasted line. */
const KEY_TAILS: [tail: string, name: string][] = [['\n', 'a newline'], ['\r\n', 'a CRLF line end'], [' ', 'a space']]

/**
 * Whether the sign was made with whitespace after the MD5 key (the key file read without
 * trimming it): the explanation, or undefined.
 */
export function md5KeyTailExplanation(text: string, sign: string, md5Key: string, form: Md5KeyForm = 'direct'): string | undefined {
  for (const [tail, name] of KEY_TAILS) {
    if (md5Matches(text, sign, md5Key + tail, form)) return `the MD5 key was signed with ${name} after it (its file read whole, without trimming): sign with the key's characters alone`
  }
  return undefined
}

/** Someone else's parameters too long to try variants on: said so, and not diagnosed further. */
const tooLong = (expectedString: string, otherCause: string): EpayDiagnosis => ({
  verified: false,
  expectedString,
  explanation: `the string to sign is over ${MAX_DIAGNOSED_CHARS / 1024} KB: not diagnosed further (the parameters were changed after signing, or ${otherCause})`,
})

export function diagnoseEpayMd5(input: {params: EpayParams; sign: string; md5Key: string}): EpayDiagnosis {
  const {params, sign, md5Key} = input
  const text = epayStringToSign(params)
  const shown = (variant: string, form: Md5KeyForm) => (form === 'param' ? `${variant}&key=${KEY_PLACEHOLDER}` : variant + KEY_PLACEHOLDER)
  const expectedString = shown(text, 'direct')
  if (md5Matches(text, sign, md5Key)) return {verified: true, expectedString}
  for (const form of ['direct', 'param'] as const) {
    const tail = md5KeyTailExplanation(text, sign, md5Key, form)
    if (!tail) continue
    const explanation = form === 'param' ? `${tail}; and MD5 key appended as \`&key=KEY\`, while the rule appends it directly` : tail
    return {verified: false, expectedString, matchingString: shown(text, form), explanation}
  }
  if (text.length > MAX_DIAGNOSED_CHARS) return tooLong(expectedString, 'another MD5 key signed them')
  for (const variant of variants(params)) {
    for (const form of ['direct', 'param'] as const) {
      if ((variant.explanation === undefined && form === 'direct') || !md5Matches(variant.text, sign, md5Key, form)) continue
      const parts = [variant.explanation, form === 'param' ? 'MD5 key appended as `&key=KEY`, while the rule appends it directly' : undefined]
      return {verified: false, expectedString, matchingString: shown(variant.text, form), explanation: parts.filter(Boolean).join('; and ')}
    }
  }
  return {
    verified: false,
    expectedString,
    explanation: 'no common variant verifies: the parameters were changed after signing, or they were signed with another MD5 key',
  }
}

export function diagnoseEpayRsa(input: {params: EpayParams; sign: string; key: KeyObject; otherKeys?: {name: string; key: KeyObject}[]}): EpayDiagnosis {
  const {params, sign, key, otherKeys = []} = input
  const [expectedString, ...alsoAccepted] = epayRsaStrings(params)
  if (verifyString(expectedString, sign, key)) return {verified: true, expectedString}
  // signed by a server that keeps whitespace-only values: accepted too (protocol-notes section 7)
  for (const text of alsoAccepted) if (verifyString(text, sign, key)) return {verified: true, expectedString: text}
  for (const other of otherKeys) {
    if (verifyString(expectedString, sign, other.key)) {
      return {
        verified: false,
        expectedString,
        matchingString: expectedString,
        explanation: `wrong key: the string is right, but it was signed with ${other.name} (${keyFingerprint(other.key)}), not the key checked (${keyFingerprint(key)})`,
      }
    }
  }
  if (expectedString.length > MAX_DIAGNOSED_CHARS) return tooLong(expectedString, `a key other than ${keyFingerprint(key)} signed them`)
  for (const variant of variants(params).slice(1)) {
    if (verifyString(variant.text, sign, key)) return {verified: false, expectedString, matchingString: variant.text, explanation: variant.explanation}
  }
  return {
    verified: false,
    expectedString,
    explanation: `no common variant verifies: the parameters were changed after signing, or they were signed with a key other than ${keyFingerprint(key)}`,
  }
}
