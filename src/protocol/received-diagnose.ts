// Why did the platform refuse a received request's signature? Given the body as received and
// the string the platform verified against, try the strings real clients produce instead and
// name the ones the signature verifies. A function of (body, string used) only, so it holds
// whichever field set the platform signs over.
import type {KeyObject} from 'node:crypto'
import {canonicalPairs, canonicalString, joinPairs, type Pair} from './canonical.js'
import {MAX_DIAGNOSED_VARIANTS, undiagnosable, variants} from './diagnose.js'
import {isLosslessNumber, stringifyJson, type JsonObject, type JsonValue} from './json.js'
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

/**
 * One value signed in another form than it was sent, each tried alone and named: cents sent but
 * yuan signed (150 sent, 1.50 or 1.5 signed), or yuan sent but cents signed (1.5 sent, 150 signed).
 */
function valueCandidates(pairs: Pair[]): Candidate[] {
  const out: Candidate[] = []
  if (pairs.length > MAX_DIAGNOSED_VARIANTS) return out
  pairs.forEach(([key, value], index) => {
    const forms: [signed: string, why: string][] = []
    if (/^-?\d+$/.test(value)) {
      const yuan = Number(value) / 100
      forms.push([yuan.toFixed(2), 'yuan signed, cents sent'], [String(yuan), 'yuan signed, cents sent'])
    } else if (/^-?\d+\.\d{1,2}$/.test(value)) {
      forms.push([String(Math.round(Number(value) * 100)), 'cents signed, yuan sent'])
    }
    for (const [signed, why] of forms) {
      const text = joinPairs(pairs.map((pair, i): Pair => (i === index ? [key, signed] : pair)))
      out.push({cause: `a value signed in another form than it was sent: ${key} signed as ${signed} but sent as ${value} (${why}); sign exactly the values you send`, text})
    }
  })
  return out
}

/** The JSON text of the body signed instead of the string to sign: as sent (without `sign`), compact, or with sorted keys. */
function jsonTextCandidates(body: JsonObject, rawText: string | undefined): Candidate[] {
  const cause = 'the JSON text of the body was signed instead of the string to sign (the fields flattened to key=value, sorted and joined with &)'
  const {sign: _sign, ...unsigned} = body
  const sorted = Object.fromEntries(Object.entries(unsigned).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const texts = [stringifyJson(unsigned), stringifyJson(sorted)]
  // the text as sent, with the `sign` member cut out (the client added it after signing)
  if (rawText) texts.push(rawText.replace(/,\s*"sign"\s*:\s*"[^"]*"|"sign"\s*:\s*"[^"]*"\s*,?/, '').trim())
  return texts.map((text) => ({cause, text}))
}

/** Values (and keys) form-encoded as a query string is (`+` for a space, brackets encoded), PHP's http_build_query for one. */
function formEncodedCandidates(pairs: Pair[]): Candidate[] {
  const values = pairs.map(([key, value]) => `${key}=${new URLSearchParams({v: value}).toString().slice(2)}`).join('&')
  return [
    {cause: 'values form-encoded (a space as +, as a query string is): the rule signs them verbatim', text: values},
    {cause: 'the string to sign built as a query string (keys and values form-encoded, e.g. goodsDetail%5B0%5D): the rule signs them verbatim', text: new URLSearchParams(pairs).toString()},
  ]
}

/** A signature that is hex rather than Base64, or of another length than this key makes. */
function signatureFormCause(signature: string, strings: string[], key: KeyObject): string | undefined {
  const bytes = (key.asymmetricKeyDetails?.modulusLength ?? 2048) / 8
  if (/^[0-9a-fA-F]+$/.test(signature) && signature.length === bytes * 2) {
    const base64 = Buffer.from(signature, 'hex').toString('base64')
    if (strings.some((text) => verifyString(text, base64, key))) return 'the signature was sent hex-encoded: send it in standard Base64'
  }
  const length = Buffer.from(signature, 'base64').length
  if (length !== bytes) {
    return `the signature is ${length} bytes, where this merchant's registered ${bytes * 8}-bit key makes ${bytes}: it was made with another key (another size), or it is not standard Base64`
  }
  return undefined
}

export function diagnoseReceivedSignature(body: JsonObject, stringToSign: string, signature: string, key: KeyObject, rawText?: string): ReceivedSignatureDiagnosis {
  const fields = signedFields(stringToSign)
  const tooLarge = undiagnosable(body, stringToSign)
  if (tooLarge) return {stringToSign, fields, causes: [`not diagnosed: ${tooLarge} (key mismatch, or the body changed after signing)`]}
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
  const pairs = canonicalPairs(signedPart)
  candidates.push(
    ...numberCandidates(signedPart),
    ...valueCandidates(pairs),
    ...jsonTextCandidates(body, rawText),
    ...formEncodedCandidates(pairs),
    ...variants(signedPart).map((v) => ({cause: v.explanation, text: v.text})),
  )
  if (outside.length > 0) candidates.push(...numberCandidates(body), ...variants(body).map((v) => ({cause: `${v.explanation}; and fields outside the signed set (${outside.join(', ')}) were signed`, text: v.text})))
  const causes: string[] = []
  const tried = new Set([stringToSign])
  for (const {cause, text} of candidates) {
    if (tried.has(text)) continue
    tried.add(text)
    if (verifyString(text, signature, key) && !causes.includes(cause)) causes.push(cause)
  }
  const form = causes.length === 0 ? signatureFormCause(signature, [stringToSign, ...tried], key) : undefined
  if (form) causes.push(form)
  if (causes.length === 0) {
    causes.push(
      `nothing tried explains it: none of ${tried.size} strings a client may have signed (numbers, values, JSON text, encodings, nulls, order, fields) verifies with the merchant's registered key (${keyFingerprint(key)}), so the key that signed is likely not that one, or the body changed after signing; run \`unipay ping\` with your key and compare its string to sign with this one`,
    )
  }
  return {stringToSign, fields, causes}
}
