import {createHash, createSign} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parseEasyPayInput} from '../../src/protocol/callback.js'
import {diagnoseEpayMd5, diagnoseEpayRsa} from '../../src/protocol/epay-diagnose.js'
import {epayStringToSign, md5Matches, md5OfString, signMd5, signRsa, verifyRsa, type Md5KeyForm} from '../../src/protocol/epay.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'

/** V1's check as the sandbox makes it: the MD5 of the parameters' string with the key. */
const verifyMd5 = (params: Record<string, string>, sign: string, md5Key: string, form: Md5KeyForm = 'direct') => md5Matches(epayStringToSign(params), sign, md5Key, form)

interface Vector {
  name: string
  kind: string
  params: Record<string, string>
  canonicalString: string
  sign: string
  signedBy: 'md5 key' | 'merchant private key' | 'platform private key'
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/epay-sign.json', import.meta.url), 'utf8')) as {
  v1: {md5Key: string; vectors: Vector[]}
  v2: {keys: Record<'merchant_private_key_pkcs8_b64' | 'merchant_public_key_spki_b64' | 'platform_private_key_pkcs8_b64' | 'platform_public_key_spki_b64', string>; vectors: Vector[]}
}
const {md5Key} = fixture.v1
const keys = fixture.v2.keys
const signer = (vector: Vector) =>
  vector.signedBy === 'platform private key'
    ? {privateKey: loadPrivateKey(keys.platform_private_key_pkcs8_b64), publicKey: loadPublicKey(keys.platform_public_key_spki_b64)}
    : {privateKey: loadPrivateKey(keys.merchant_private_key_pkcs8_b64), publicKey: loadPublicKey(keys.merchant_public_key_spki_b64)}

describe('V1 (MD5) vectors', () => {
  it('has vectors for requests and notifications', () => {
    expect(fixture.v1.vectors.map((v) => v.kind).sort()).toEqual(['notification', 'request', 'request'])
  })

  it.each(fixture.v1.vectors.map((v): [string, Vector] => [v.name, v]))('%s: string to sign, sign and verification', (_name, vector) => {
    expect(vector.signedBy).toBe('md5 key')
    expect(epayStringToSign(vector.params)).toBe(vector.canonicalString)
    expect(signMd5(vector.params, md5Key)).toBe(vector.sign)
    expect(createHash('md5').update(vector.canonicalString + md5Key).digest('hex')).toBe(vector.sign)
    expect(verifyMd5(vector.params, vector.params.sign, md5Key)).toBe(true)
    expect(verifyMd5(vector.params, vector.sign.toUpperCase(), md5Key)).toBe(true)
  })

  it('fails for a changed value, another key, the &key= form or a truncated sign', () => {
    const {params, sign} = fixture.v1.vectors[0]
    expect(verifyMd5({...params, money: '1.01'}, sign, md5Key)).toBe(false)
    expect(verifyMd5(params, sign, `${md5Key}x`)).toBe(false)
    expect(verifyMd5(params, sign, md5Key, 'param')).toBe(false)
    expect(verifyMd5(params, sign.slice(0, 31), md5Key)).toBe(false)
  })

  it('appends the key as &key=KEY when asked', () => {
    const {params, canonicalString} = fixture.v1.vectors[0]
    const sign = signMd5(params, md5Key, 'param')
    expect(sign).toBe(createHash('md5').update(`${canonicalString}&key=${md5Key}`).digest('hex'))
    expect(md5Matches(canonicalString, sign, md5Key, 'param')).toBe(true)
  })
})

describe('V2 (RSA) vectors', () => {
  it('has vectors signed by the merchant and by the platform', () => {
    expect(new Set(fixture.v2.vectors.map((v) => v.signedBy))).toEqual(new Set(['merchant private key', 'platform private key']))
  })

  it.each(fixture.v2.vectors.map((v): [string, Vector] => [v.name, v]))('%s: string to sign, signature and verification', (_name, vector) => {
    const {privateKey, publicKey} = signer(vector)
    expect(epayStringToSign(vector.params)).toBe(vector.canonicalString)
    expect(signRsa(vector.params, privateKey)).toBe(vector.sign)
    expect(verifyRsa(vector.params, vector.params.sign, publicKey)).toBe(true)
  })

  it('fails for a changed value and for the other party\'s key', () => {
    const vector = fixture.v2.vectors.find((v) => v.kind === 'notification')!
    const platform = loadPublicKey(keys.platform_public_key_spki_b64)
    expect(verifyRsa({...vector.params, money: '1.10'}, vector.sign, platform)).toBe(false)
    expect(verifyRsa(vector.params, vector.sign, loadPublicKey(keys.merchant_public_key_spki_b64))).toBe(false)
  })
})

describe('the selection', () => {
  it('skips sign, sign_type, empty strings, missing values, arrays and objects; keeps spaces and raw characters', () => {
    const text = epayStringToSign({b: ' ', a: 'x&y=z', sign: 's', sign_type: 'RSA', e: '', n: null, u: undefined, list: ['1'], obj: {k: 'v'}, num: 5})
    expect(text).toBe('a=x&y=z&b= &num=5')
  })

  it('sorts keys by bytes (upper case first)', () => {
    expect(epayStringToSign({b: '1', B: '2', a_b: '3', ab: '4'})).toBe('B=2&a_b=3&ab=4&b=1')
  })
})

describe('diagnosing an MD5 sign that does not verify', () => {
  const [basic, special, notify] = fixture.v1.vectors
  const md5 = (text: string) => md5OfString(text, md5Key)
  const explain = (params: Record<string, string>, sign: string) => diagnoseEpayMd5({params, sign, md5Key})

  it('verifies a good sign and shows the key as a placeholder, never the key', () => {
    const diagnosis = explain(notify.params, notify.sign)
    expect(diagnosis).toEqual({verified: true, expectedString: `${notify.canonicalString}{MD5 key}`})
  })

  it.each([
    ['the key appended as &key=', notify.params, signMd5(notify.params, md5Key, 'param'), /^MD5 key appended as `&key=KEY`, while the rule appends it directly$/, `${notify.canonicalString}&key={MD5 key}`],
    ['empty values kept', basic.params, md5(basic.canonicalString.replace('&pid=', '&param=&pid=')), /^empty value handled differently/, `${basic.canonicalString.replace('&pid=', '&param=&pid=')}{MD5 key}`],
    ['values URL-encoded', special.params, md5(epayStringToSign(Object.fromEntries(Object.entries(special.params).map(([k, v]) => [k, encodeURIComponent(v)])))), /^values URL-encoded: the signer encoded values/, undefined],
    ['values form-encoded', special.params, md5(epayStringToSign(Object.fromEntries(Object.entries(special.params).map(([k, v]) => [k, encodeURIComponent(v).replace(/%20/g, '+')])))), /^values URL-encoded: the signer form-encoded values/, undefined],
    ['sign_type signed', {...notify.params, sign_type: 'MD5'}, md5(notify.canonicalString.replace('&trade_no=', '&sign_type=MD5&trade_no=')), /^sign_type included/, undefined],
    ['a field added after signing', {...notify.params, extra: '1'}, notify.sign, /^field added or dropped: the sign matches without `extra`/, `${notify.canonicalString}{MD5 key}`],
    ['sign_type signed and the key as &key=', {...notify.params, sign_type: 'MD5'}, md5OfString(notify.canonicalString.replace('&trade_no=', '&sign_type=MD5&trade_no='), md5Key, 'param'), /^sign_type included.*; and MD5 key appended as `&key=KEY`/, undefined],
  ])('explains %s', (_name, params, sign, explanation, matching) => {
    const diagnosis = explain(params, sign)
    expect(diagnosis.verified).toBe(false)
    expect(diagnosis.explanation).toMatch(explanation)
    if (matching) expect(diagnosis.matchingString).toBe(matching)
    expect(JSON.stringify(diagnosis)).not.toContain(md5Key)
  })

  it('blames a change or another key when no variant matches', () => {
    expect(explain({...notify.params, money: '2.00'}, notify.sign).explanation).toBe(
      'no common variant verifies: the parameters were changed after signing, or they were signed with another MD5 key',
    )
    expect(diagnoseEpayMd5({params: notify.params, sign: notify.sign, md5Key: 'other'}).verified).toBe(false)
  })
})

describe('diagnosing an RSA sign that does not verify', () => {
  const notify = fixture.v2.vectors.find((v) => v.kind === 'notification')!
  const platform = loadPublicKey(keys.platform_public_key_spki_b64)
  const merchant = loadPublicKey(keys.merchant_public_key_spki_b64)
  const platformPrivate = loadPrivateKey(keys.platform_private_key_pkcs8_b64)

  it('names the wrong key', () => {
    const byMerchant = signRsa(notify.params, loadPrivateKey(keys.merchant_private_key_pkcs8_b64))
    const diagnosis = diagnoseEpayRsa({params: notify.params, sign: byMerchant, key: platform, otherKeys: [{name: 'the merchant key', key: merchant}]})
    expect(diagnosis.explanation).toMatch(/^wrong key: the string is right, but it was signed with the merchant key \(SHA256:/)
  })

  it('names URL-encoded values and a signed sign_type, and blames a change otherwise', () => {
    const encoded = Object.fromEntries(Object.entries(notify.params).map(([k, v]) => [k, encodeURIComponent(v)]))
    const urlSign = signRsa(encoded, platformPrivate)
    expect(diagnoseEpayRsa({params: notify.params, sign: urlSign, key: platform}).explanation).toMatch(/^values URL-encoded/)
    const typeSigned = signatureOver(`${notify.canonicalString.replace('&timestamp=', '&sign_type=RSA&timestamp=')}`)
    expect(diagnoseEpayRsa({params: notify.params, sign: typeSigned, key: platform}).explanation).toMatch(/^sign_type included/)
    expect(diagnoseEpayRsa({params: {...notify.params, money: '0.01'}, sign: notify.sign, key: platform}).explanation).toMatch(/^no common variant verifies: the parameters were changed after signing/)
  })

  function signatureOver(text: string): string {
    return createSign('RSA-SHA256').update(text, 'utf8').sign(platformPrivate, 'base64')
  }
})

describe('reading a saved easy_pay notification', () => {
  it('takes a query string, a path or a whole URL, values decoded', () => {
    const expected = {pid: '1001', name: 'a b', notify_url: 'http://x/n?a=1'}
    expect(parseEasyPayInput('pid=1001&name=a+b&notify_url=http://x/n?a=1')).toEqual(expected)
    expect(parseEasyPayInput('http://127.0.0.1:8080/notify?pid=1001&name=a%20b&notify_url=http%3A%2F%2Fx%2Fn%3Fa%3D1#top')).toEqual(expected)
    expect(parseEasyPayInput('/notify?pid=1001&name=a+b&notify_url=http://x/n?a=1\n')).toEqual(expected)
    expect(parseEasyPayInput('https://shop.example.com/notify')).toEqual({})
  })
})
