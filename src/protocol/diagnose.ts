// Why does a signature not verify? Rebuild the string the ways other signers commonly do and
// report the variant that verifies; or, given the other side's string, list the differences.
import type {KeyObject} from 'node:crypto'
import {canonicalPairs, formatNumber, joinPairs, type Pair} from './canonical.js'
import {isLosslessNumber, stringifyJson, type JsonObject, type JsonValue} from './json.js'
import {keyFingerprint} from './keys.js'
import {verifyString} from './signature.js'

export interface Diagnosis {
  verified: boolean
  /** One sentence naming the difference that explains the failure, when one was found. */
  explanation?: string
  /** The string that the signature does verify against, when a variant matched. */
  matchingString?: string
  expectedString: string
}

interface Variant {
  explanation: string
  text: string
}

type Leaf = {key: string; value: JsonValue; order: number}

function leaves(value: JsonValue, key: string, out: Leaf[]): void {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push({key, value, order: out.length})
    value.forEach((item, index) => leaves(item, `${key}[${index}]`, out))
    return
  }
  if (value !== null && typeof value === 'object' && !isLosslessNumber(value)) {
    const entries = Object.entries(value)
    if (entries.length === 0) out.push({key, value, order: out.length})
    for (const [child, item] of entries) leaves(item, key ? `${key}.${child}` : child, out)
    return
  }
  out.push({key, value, order: out.length})
}

function bodyLeaves(body: JsonObject): Leaf[] {
  const out: Leaf[] = []
  for (const [key, value] of Object.entries(body)) if (key.toLowerCase() !== 'sign') leaves(value, key, out)
  return out
}

const byKey = ([a]: Pair, [b]: Pair) => (a < b ? -1 : a > b ? 1 : 0)

function render(
  items: Leaf[],
  scalar: (leaf: Leaf) => string | undefined,
  sort: (pairs: Pair[]) => Pair[] = (pairs) => pairs.sort(byKey),
): string {
  const pairs: Pair[] = []
  for (const leaf of items) {
    const text = scalar(leaf)
    if (text !== undefined) pairs.push([leaf.key, text])
  }
  return joinPairs(sort(pairs))
}

function standardScalar(leaf: Leaf): string | undefined {
  const {value} = leaf
  if (value === null || typeof value === 'object') {
    return isLosslessNumber(value) ? formatNumber(value.value) : undefined
  }
  if (typeof value === 'number') return formatNumber(String(value))
  return typeof value === 'string' ? value : String(value)
}

/**
 * Bounds on the work a diagnosis does for someone else's body: one variant per field (dropped, or
 * signed in another form) is quadratic in the field count, and every variant is a string to build and a signature to check.
 * Real bodies have a few dozen fields and a few KB; a hostile one must not cost minutes.
 */
export const MAX_DIAGNOSED_VARIANTS = 100
export const MAX_DIAGNOSED_CHARS = 64 * 1024
/** Values, containers included: every variant walks them all, and an empty one adds nothing to the string to sign. */
const MAX_DIAGNOSED_VALUES = 10_000

/**
 * Why a body is not diagnosed, or undefined: its string to sign over MAX_DIAGNOSED_CHARS, or over
 * MAX_DIAGNOSED_VALUES values (a megabyte of empty arrays nested 500 deep signs to a few bytes).
 */
export function undiagnosable(body: JsonObject, stringToSign: string): string | undefined {
  if (stringToSign.length > MAX_DIAGNOSED_CHARS) return `the string to sign is over ${MAX_DIAGNOSED_CHARS / 1024} KB`
  // counted as they are met, so a list of a million items stops the count at once
  const stack: JsonValue[] = [body]
  let count = 1
  while (stack.length > 0) {
    const value = stack.pop()!
    const items = Array.isArray(value) ? value : value !== null && typeof value === 'object' && !isLosslessNumber(value) ? Object.values(value) : []
    count += items.length
    if (count > MAX_DIAGNOSED_VALUES) return `the body holds over ${MAX_DIAGNOSED_VALUES} values`
    for (const item of items) stack.push(item)
  }
  return undefined
}

export function variants(body: JsonObject): Variant[] {
  const all = bodyLeaves(body)
  const out: Variant[] = []
  const standardPairs = canonicalPairs(body)
  for (const [key] of standardPairs.length <= MAX_DIAGNOSED_VARIANTS ? standardPairs : []) {
    out.push({
      explanation: `field added or dropped: the signature matches without \`${key}\`, so it was added after signing or the signer leaves it out`,
      text: joinPairs(standardPairs.filter(([other]) => other !== key)),
    })
  }
  out.push(
    {
      explanation: 'empty value handled differently: the signer skips empty strings, while the rule keeps them as `key=`',
      text: render(all, (leaf) => (leaf.value === '' ? undefined : standardScalar(leaf))),
    },
    {
      explanation: 'null handled differently: the signer writes null fields as `key=`, while the rule skips them',
      text: render(all, (leaf) => (leaf.value === null ? '' : standardScalar(leaf))),
    },
    {
      explanation: 'null handled differently: the signer writes null fields as `key=null`, while the rule skips them',
      text: render(all, (leaf) => (leaf.value === null ? 'null' : standardScalar(leaf))),
    },
    {
      explanation: 'empty array or object handled differently: the signer writes them as `key=`, while the rule skips them',
      text: render(all, (leaf) => (typeof leaf.value === 'object' && leaf.value !== null && !isLosslessNumber(leaf.value) ? '' : standardScalar(leaf))),
    },
    {
      explanation: 'number reformatted: the signer kept number literals as written (e.g. 12.50), while the rule writes 12.5',
      text: render(all, (leaf) => (isLosslessNumber(leaf.value) ? leaf.value.value : standardScalar(leaf))),
    },
    {
      explanation: 'number reformatted: the signer read numbers as floating point (long ids lose digits, 1e21 style exponents)',
      text: render(all, (leaf) => (isLosslessNumber(leaf.value) ? String(Number(leaf.value.value)) : standardScalar(leaf))),
    },
    {
      explanation: 'order: the signer did not sort the keys (it kept the order of the JSON text)',
      text: render(all, standardScalar, (pairs) => pairs),
    },
    {
      explanation: 'order: the signer sorted keys ignoring letter case',
      text: render(all, standardScalar, (pairs) =>
        pairs.sort(([a], [b]) => {
          const x = a.toLowerCase()
          const y = b.toLowerCase()
          return x < y ? -1 : x > y ? 1 : 0
        }),
      ),
    },
    {
      explanation: 'order: the signer sorted array indexes as numbers (goodsDetail[2] before goodsDetail[10]); the rule sorts whole keys as text',
      text: render(all, standardScalar, (pairs) =>
        pairs.sort(([a], [b]) => a.localeCompare(b, 'en', {numeric: true, sensitivity: 'variant', caseFirst: 'upper'})),
      ),
    },
    {
      explanation: 'nested objects handled differently: the signer put nested objects and arrays in as JSON text instead of flattening them',
      text: joinPairs(
        Object.entries(body)
          .filter(([key, value]) => key.toLowerCase() !== 'sign' && value !== null)
          .map(([key, value]): Pair => [key, typeof value === 'object' && !isLosslessNumber(value) ? stringifyJson(value) : standardScalar({key, value, order: 0})!])
          .sort(byKey),
      ),
    },
    {
      explanation: 'values URL-encoded: the signer encoded values, while the rule uses them verbatim',
      text: render(all, (leaf) => {
        const text = standardScalar(leaf)
        return text === undefined ? undefined : encodeURIComponent(text)
      }),
    },
  )
  return out
}

interface DiagnoseInput {
  body: JsonObject
  signature: string
  key: KeyObject
  /** Other keys the signer may have used by mistake, with a name to report. */
  otherKeys?: {name: string; key: KeyObject}[]
}

export function diagnoseSignature({body, signature, key, otherKeys = []}: DiagnoseInput): Diagnosis {
  const expectedString = joinPairs(canonicalPairs(body))
  if (verifyString(expectedString, signature, key)) return {verified: true, expectedString}
  for (const other of otherKeys) {
    if (verifyString(expectedString, signature, other.key)) {
      return {
        verified: false,
        expectedString,
        matchingString: expectedString,
        explanation: `wrong key: the string is right, but it was signed with ${other.name} (${keyFingerprint(other.key)}), not the key checked (${keyFingerprint(key)})`,
      }
    }
  }
  const tooLarge = undiagnosable(body, expectedString)
  if (tooLarge) return {verified: false, expectedString, explanation: `${tooLarge}: not diagnosed further (the body was changed after signing, or another key signed it)`}
  for (const variant of variants(body)) {
    if (variant.text !== expectedString && verifyString(variant.text, signature, key)) {
      return {verified: false, expectedString, matchingString: variant.text, explanation: variant.explanation}
    }
  }
  return {
    verified: false,
    expectedString,
    explanation: `no common variant verifies: the body was changed after signing, or it was signed with a key other than ${keyFingerprint(key)}`,
  }
}

interface StringDifference {
  key: string
  ours?: string
  theirs?: string
}

/** Pairwise differences between two strings to sign (ours and, say, the server's). */
export function compareStrings(ours: string, theirs: string): {differences: StringDifference[]; orderDiffers: boolean} {
  const split = (text: string) =>
    text === '' ? [] : text.split('&').map((pair): Pair => {
      const at = pair.indexOf('=')
      return at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)]
    })
  // Values may contain '&'; good enough for a diff, where exactness matters less than a hint.
  const a = new Map(split(ours))
  const b = new Map(split(theirs))
  const differences: StringDifference[] = []
  for (const [key, value] of a) if (b.get(key) !== value) differences.push({key, ours: value, theirs: b.get(key)})
  for (const [key, value] of b) if (!a.has(key)) differences.push({key, theirs: value})
  const orderDiffers = differences.length === 0 && ours !== theirs
  return {differences, orderDiffers}
}
