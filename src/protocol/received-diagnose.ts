// Why did the platform refuse a received request's signature? Given the body as received and
// the string the platform verified against, try the strings real clients produce instead and
// name the ones the signature verifies. A function of (body, string used) only, so it holds
// whichever field set the platform signs over.
import type {KeyObject} from 'node:crypto'
import {canonicalString} from './canonical.js'
import {MAX_DIAGNOSED_CHARS, variants} from './diagnose.js'
import {isLosslessNumber, type JsonObject, type JsonValue} from './json.js'
import {keyFingerprint} from './keys.js'
import {verifyString} from './signature.js'

export interface ReceivedSignatureDiagnosis {
  /** The platform's own string to sign. */
  stringToSign: string
  /** The top-level fields it covers, in its order. */
  fields: string[]
  /** The likeliest causes, best first; never empty. */
  causes: string[]
}

/** Top-level field names of a string to sign (`a.b=1&c[0]=2` covers a and c). */
export function signedFields(stringToSign: string): string[] {
  if (stringToSign === '') return []
  const names = stringToSign.split('&').map((pair) => /^[^=.[]*/.exec(pair)![0])
  return [...new Set(names)]
}

/** The body with each number leaf replaced by the text `write` gives (undefined: left alone). */
function rewriteNumbers(value: JsonValue, write: (literal: string) => string | undefined): JsonValue {
  if (isLosslessNumber(value)) return write(value.value) ?? value
  if (Array.isArray(value)) return value.map((item) => rewriteNumbers(item, write))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewriteNumbers(item, write)]))
  }
  return value
}

const isFraction = (literal: string) => /[.eE]/.test(literal)

/** Java's Double.toString: 1.5, 100.0, 1.0E-7, 1.0E7. */
function javaDouble(n: number): string {
  if (n === 0) return '0.0'
  const abs = Math.abs(n)
  if (abs >= 1e-3 && abs < 1e7) return Number.isInteger(n) ? `${n}.0` : String(n)
  const [mantissa, exponent] = n.toExponential().split('e')
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`
}

interface Candidate {
  cause: string
  text: string
}

function numberCandidates(body: JsonObject): Candidate[] {
  const variant = (cause: string, write: (literal: string) => string | undefined): Candidate => ({
    cause,
    text: canonicalString(rewriteNumbers(body, write) as JsonObject),
  })
  return [
    variant('a number signed as written in the JSON (e.g. 1.50), while the platform writes it without trailing zeros or exponent (1.5)', (l) => l),
    variant('a number signed the way a float prints (e.g. 1e-7 in JavaScript), while the platform writes plain decimals (0.0000001)', (l) => (isFraction(l) ? String(Number(l)) : undefined)),
    variant('a number signed the way Java prints a double (e.g. 1.0E-7 or 100.0), while the platform writes plain decimals', (l) => (isFraction(l) ? javaDouble(Number(l)) : undefined)),
    variant(
      'a float signed at 14 significant digits but sent at 17 (PHP: precision=14 for strings, serialize_precision=17 for json_encode): send the value you sign, e.g. round() it or use strings',
      (l) => (isFraction(l) ? String(Number(Number(l).toPrecision(14))) : undefined),
    ),
  ]
}

export function diagnoseReceivedSignature(body: JsonObject, stringToSign: string, signature: string, key: KeyObject): ReceivedSignatureDiagnosis {
  const fields = signedFields(stringToSign)
  if (stringToSign.length > MAX_DIAGNOSED_CHARS) {
    return {stringToSign, fields, causes: [`not diagnosed: the string to sign is over ${MAX_DIAGNOSED_CHARS / 1024} KB (key mismatch, or the body changed after signing)`]}
  }
  const covered = new Set(fields)
  const signedPart: JsonObject = {}
  // nulls too: the platform skips them, a client may have signed them as `key=`
  for (const [name, value] of Object.entries(body)) if (covered.has(name) || value === null) signedPart[name] = value
  const outside = Object.keys(body).filter((name) => name.toLowerCase() !== 'sign' && !covered.has(name) && body[name] !== null)
  const candidates: Candidate[] = []
  if (outside.length > 0) {
    candidates.push({
      cause: `a field outside the signed set: the signature covers ${outside.join(', ')}, which the platform does not sign over for this endpoint (it signs ${fields.join(', ')})`,
      text: canonicalString(body),
    })
  }
  candidates.push(...numberCandidates(signedPart), ...variants(signedPart).map((v) => ({cause: v.explanation, text: v.text})))
  if (outside.length > 0) candidates.push(...numberCandidates(body), ...variants(body).map((v) => ({cause: `${v.explanation}; and fields outside the signed set (${outside.join(', ')}) were signed`, text: v.text})))
  const causes: string[] = []
  const tried = new Set([stringToSign])
  for (const {cause, text} of candidates) {
    if (tried.has(text)) continue
    tried.add(text)
    if (verifyString(text, signature, key) && !causes.includes(cause)) causes.push(cause)
  }
  if (causes.length === 0) {
    causes.push(
      `key mismatch, or the body changed after signing: no variant a common client produces verifies with the merchant's registered key (${keyFingerprint(key)}); run \`unipay ping\` with your key and compare its string to sign with this one`,
    )
  }
  return {stringToSign, fields, causes}
}
