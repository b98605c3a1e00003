import {generateKeyPairSync} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {canonicalString} from '../../src/protocol/canonical.js'
import {compareStrings, diagnoseSignature, type Diagnosis} from '../../src/protocol/diagnose.js'
import {parseJsonObject, type JsonObject} from '../../src/protocol/json.js'
import {keyFingerprint} from '../../src/protocol/keys.js'
import {signString, verifyString} from '../../src/protocol/signature.js'

const merchant = generateKeyPairSync('rsa', {modulusLength: 2048})
const other = generateKeyPairSync('rsa', {modulusLength: 2048})

interface Case {
  body: JsonObject
  diagnosis: Diagnosis
}

/**
 * Parses `text` losslessly, signs `signerString` (the string a mistaken signer built, written
 * out by hand in each test) and diagnoses the signature against the merchant public key.
 * `expected` is the rule's string for the body, also written out by hand.
 */
function diagnose(text: string, signerString: string, expected: string, signingKey = merchant.privateKey): Case {
  const body = parseJsonObject(text)
  // Sanity: the hand-written strings are what they claim to be.
  expect(canonicalString(body)).toBe(expected)
  const signature = signString(signerString, signingKey)
  body.sign = signature
  const diagnosis = diagnoseSignature({body, signature, key: merchant.publicKey})
  expect(diagnosis.expectedString).toBe(expected)
  return {body, diagnosis}
}

/** Asserts the diagnosis found exactly the mistaken signer's string. */
function expectMatch(diagnosis: Diagnosis, explanation: RegExp, signerString: string): void {
  expect(diagnosis.verified).toBe(false)
  expect(diagnosis.explanation).toMatch(explanation)
  expect(diagnosis.matchingString).toBe(signerString)
  expect(verifyString(diagnosis.expectedString, signString(signerString, merchant.privateKey), merchant.publicKey)).toBe(false)
}

describe('diagnoseSignature: correct signatures', () => {
  it('verifies a correctly signed body and gives no explanation', () => {
    const expected = 'amount=100&attach=&orderNo=A1&paid=true'
    const {diagnosis} = diagnose('{"orderNo":"A1","amount":100,"attach":"","paid":true,"note":null}', expected, expected)
    expect(diagnosis).toEqual({verified: true, expectedString: expected})
    expect(diagnosis.explanation).toBeUndefined()
    expect(diagnosis.matchingString).toBeUndefined()
  })

  it('verifies a 19-digit integer and a 12.50 decimal parsed losslessly from raw text', () => {
    const expected = 'amount=12.5&orderNo=1990000000000000001'
    const signature = signString(expected, merchant.privateKey)
    const raw = `{"orderNo":1990000000000000001,"amount":12.50,"sign":"${signature}"}`
    const body = parseJsonObject(raw)
    expect(canonicalString(body)).toBe(expected)
    const diagnosis = diagnoseSignature({body, signature: body.sign as string, key: merchant.publicKey})
    expect(diagnosis).toEqual({verified: true, expectedString: expected})
  })
})

describe('diagnoseSignature: mistaken signers', () => {
  it('field added after signing: names the field', () => {
    const signer = 'amount=100&orderNo=A1&subject=pen'
    const {diagnosis} = diagnose(
      '{"amount":100,"orderNo":"A1","subject":"pen","attach":"x"}',
      signer,
      'amount=100&attach=x&orderNo=A1&subject=pen',
    )
    expectMatch(diagnosis, /^field added or dropped/, signer)
    expect(diagnosis.explanation).toContain('`attach`')
  })

  it('empty strings skipped by the signer (two of them, so no single dropped field explains it)', () => {
    const signer = 'amount=100&orderNo=A1'
    const {diagnosis} = diagnose(
      '{"amount":100,"attach":"","memo":"","orderNo":"A1"}',
      signer,
      'amount=100&attach=&memo=&orderNo=A1',
    )
    expectMatch(diagnosis, /^empty value handled differently/, signer)
  })

  it('null written as `key=`', () => {
    const signer = 'amount=100&attach=&orderNo=A1'
    const {diagnosis} = diagnose('{"amount":100,"attach":null,"orderNo":"A1"}', signer, 'amount=100&orderNo=A1')
    expectMatch(diagnosis, /^null handled differently/, signer)
    expect(diagnosis.explanation).toContain('`key=`')
    expect(diagnosis.explanation).not.toContain('`key=null`')
  })

  it('null written as `key=null`, also inside nested objects', () => {
    const signer = 'amount=100&attach=null&orderNo=A1&payer.id=u1&payer.name=null'
    const {diagnosis} = diagnose(
      '{"amount":100,"attach":null,"orderNo":"A1","payer":{"id":"u1","name":null}}',
      signer,
      'amount=100&orderNo=A1&payer.id=u1',
    )
    expectMatch(diagnosis, /^null handled differently/, signer)
    expect(diagnosis.explanation).toContain('`key=null`')
  })

  it('empty arrays and objects written as `key=`', () => {
    const signer = 'amount=100&extra=&orderNo=A1&tags='
    const {diagnosis} = diagnose('{"amount":100,"extra":{},"orderNo":"A1","tags":[]}', signer, 'amount=100&orderNo=A1')
    expectMatch(diagnosis, /^empty array or object/, signer)
  })

  it('number literal kept as written (12.50)', () => {
    const signer = 'amount=12.50&orderNo=A1'
    const {diagnosis} = diagnose('{"amount":12.50,"orderNo":"A1"}', signer, 'amount=12.5&orderNo=A1')
    expectMatch(diagnosis, /^number reformatted/, signer)
    expect(diagnosis.explanation).toContain('12.50')
  })

  it('19-digit integer read as floating point', () => {
    const signer = 'amount=100&orderNo=1990000000000000000'
    const {diagnosis} = diagnose(
      '{"amount":100,"orderNo":1990000000000000001}',
      signer,
      'amount=100&orderNo=1990000000000000001',
    )
    expectMatch(diagnosis, /^number reformatted/, signer)
    expect(diagnosis.explanation).toMatch(/floating point/)
  })

  it('keys not sorted (JSON text order)', () => {
    const signer = 'orderNo=A1&amount=100&currency=CNY'
    const {diagnosis} = diagnose('{"orderNo":"A1","amount":100,"currency":"CNY"}', signer, 'amount=100&currency=CNY&orderNo=A1')
    expectMatch(diagnosis, /^order/, signer)
    expect(diagnosis.explanation).toMatch(/did not sort/)
  })

  it('keys sorted ignoring letter case', () => {
    // JSON order differs from both the rule's order and the case-insensitive one.
    const signer = 'amount=100&Body=pen&currency=CNY'
    const {diagnosis} = diagnose('{"currency":"CNY","Body":"pen","amount":100}', signer, 'Body=pen&amount=100&currency=CNY')
    expectMatch(diagnosis, /^order/, signer)
    expect(diagnosis.explanation).toMatch(/ignoring letter case/)
  })

  it('array indexes sorted as numbers (goodsDetail[2] before goodsDetail[10])', () => {
    const items = Array.from({length: 11}, (_, i) => `{"name":"g${i}","qty":${i + 1}}`)
    // orderNo first in the JSON text, so the "not sorted" variant does not produce the numeric order.
    const text = `{"orderNo":"A1","goodsDetail":[${items.join(',')}],"amount":100}`
    const pairs = (indexes: number[]) => indexes.map((i) => `goodsDetail[${i}].name=g${i}&goodsDetail[${i}].qty=${i + 1}`).join('&')
    const numeric = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    // Code-unit order: '0' (0x30) sorts before ']' (0x5D), so [10] comes before [1].
    const textual = [0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    const signer = `amount=100&${pairs(numeric)}&orderNo=A1`
    const {diagnosis} = diagnose(text, signer, `amount=100&${pairs(textual)}&orderNo=A1`)
    expectMatch(diagnosis, /^order/, signer)
    expect(diagnosis.explanation).toMatch(/array indexes as numbers/)
  })

  it('nested objects and arrays put in as JSON text', () => {
    const signer = 'amount=100&orderNo=A1&payer={"id":"u1","name":"Li"}&tags=["a","b"]'
    const {diagnosis} = diagnose(
      '{"amount":100,"orderNo":"A1","payer":{"id":"u1","name":"Li"},"tags":["a","b"]}',
      signer,
      'amount=100&orderNo=A1&payer.id=u1&payer.name=Li&tags[0]=a&tags[1]=b',
    )
    expectMatch(diagnosis, /^nested objects handled differently/, signer)
  })

  it('nested objects as JSON text, with a number inside the nested object', () => {
    // A signer that serialises goodsDetail as JSON writes the number as a number: "qty":2.
    const signer = 'amount=100&goodsDetail=[{"name":"pen","qty":2}]&orderNo=A1'
    const {diagnosis} = diagnose(
      '{"amount":100,"goodsDetail":[{"name":"pen","qty":2}],"orderNo":"A1"}',
      signer,
      'amount=100&goodsDetail[0].name=pen&goodsDetail[0].qty=2&orderNo=A1',
    )
    expectMatch(diagnosis, /^nested objects handled differently/, signer)
  })

  it('values URL-encoded', () => {
    const signer = 'amount=100&notifyUrl=https%3A%2F%2Fm.example%2Fcb%3Fx%3D1&subject=T-shirt%20%26%20cap'
    const {diagnosis} = diagnose(
      '{"amount":100,"notifyUrl":"https://m.example/cb?x=1","subject":"T-shirt & cap"}',
      signer,
      'amount=100&notifyUrl=https://m.example/cb?x=1&subject=T-shirt & cap',
    )
    expectMatch(diagnosis, /^values URL-encoded/, signer)
  })

  it('wrong key: the rule\'s string signed with one of otherKeys', () => {
    const expected = 'amount=100&orderNo=A1'
    const body = parseJsonObject('{"amount":100,"orderNo":"A1"}')
    const signature = signString(expected, other.privateKey)
    const diagnosis = diagnoseSignature({
      body,
      signature,
      key: merchant.publicKey,
      otherKeys: [{name: 'the platform key of the profile', key: other.publicKey}],
    })
    expect(diagnosis.verified).toBe(false)
    expect(diagnosis.explanation).toMatch(/^wrong key/)
    expect(diagnosis.explanation).toContain('the platform key of the profile')
    expect(diagnosis.explanation).toContain(keyFingerprint(other.publicKey))
    expect(diagnosis.explanation).toContain(keyFingerprint(merchant.publicKey))
    expect(diagnosis.matchingString).toBe(expected)
    expect(diagnosis.expectedString).toBe(expected)
  })

  it('signed with another key that is not among otherKeys: no variant verifies', () => {
    const {diagnosis} = diagnose('{"amount":100,"orderNo":"A1"}', 'amount=100&orderNo=A1', 'amount=100&orderNo=A1', other.privateKey)
    expect(diagnosis.verified).toBe(false)
    expect(diagnosis.explanation).toMatch(/^no common variant verifies/)
    expect(diagnosis.matchingString).toBeUndefined()
  })

  it('body altered after signing: falls back to "no common variant verifies"', () => {
    const signed = 'amount=100&orderNo=A1&subject=pen'
    const {diagnosis} = diagnose(
      '{"amount":200,"orderNo":"A1","subject":"pen"}',
      signed,
      'amount=200&orderNo=A1&subject=pen',
    )
    expect(diagnosis.verified).toBe(false)
    expect(diagnosis.explanation).toMatch(/^no common variant verifies/)
    expect(diagnosis.explanation).toContain(keyFingerprint(merchant.publicKey))
    expect(diagnosis.matchingString).toBeUndefined()
  })
})

describe('compareStrings', () => {
  it('reports a value that differs', () => {
    expect(compareStrings('amount=12.5&orderNo=A1', 'amount=12.50&orderNo=A1')).toEqual({
      differences: [{key: 'amount', ours: '12.5', theirs: '12.50'}],
      orderDiffers: false,
    })
  })

  it('reports keys present on only one side', () => {
    const {differences, orderDiffers} = compareStrings('amount=100&attach=&orderNo=A1', 'amount=100&orderNo=A1&tags=')
    expect(differences).toEqual([
      {key: 'attach', ours: '', theirs: undefined},
      {key: 'tags', theirs: ''},
    ])
    expect(differences[0]).not.toHaveProperty('theirs', expect.anything())
    expect(differences[1]).not.toHaveProperty('ours')
    expect(orderDiffers).toBe(false)
  })

  it('same pairs in a different order: no differences, orderDiffers true', () => {
    expect(compareStrings('Body=pen&amount=100', 'amount=100&Body=pen')).toEqual({differences: [], orderDiffers: true})
  })

  it('identical strings: nothing differs', () => {
    expect(compareStrings('amount=100&url=a=b', 'amount=100&url=a=b')).toEqual({differences: [], orderDiffers: false})
    expect(compareStrings('', '')).toEqual({differences: [], orderDiffers: false})
  })

  it('splits each pair at the first "="', () => {
    expect(compareStrings('url=a=b', 'url=a=c').differences).toEqual([{key: 'url', ours: 'a=b', theirs: 'a=c'}])
  })
})
