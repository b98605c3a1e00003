// The causes the sandbox names for a refused signature: each variant a real client produces is
// recognised from the received body and the string the platform used.
import {describe, expect, it} from 'vitest'
import {canonicalString} from '../../src/protocol/canonical.js'
import {parseJsonObject} from '../../src/protocol/json.js'
import {generateRsaKeyPair, loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {diagnoseReceivedSignature, signedFields} from '../../src/protocol/received-diagnose.js'
import {signString} from '../../src/protocol/signature.js'

const merchant = generateRsaKeyPair()
const stranger = generateRsaKeyPair()
const publicKey = loadPublicKey(merchant.publicKeyPem)

function diagnose(json: string, clientString: string, options: {signedBy?: string; used?: string; encode?: (signature: string) => string} = {}) {
  const body = parseJsonObject(json)
  const signature = signString(clientString, loadPrivateKey(options.signedBy ?? merchant.privateKeyPem))
  return diagnoseReceivedSignature(body, options.used ?? canonicalString(body), options.encode?.(signature) ?? signature, publicKey, json)
}

describe('diagnoseReceivedSignature', () => {
  it('names a null signed as `key=`', () => {
    const {causes} = diagnose('{"mchNo":"M1","attach":null}', 'attach=&mchNo=M1')
    expect(causes[0]).toMatch(/null .*`key=`/)
  })

  it('names 1.50 signed as written', () => {
    const {causes, stringToSign} = diagnose('{"amount":1.50,"mchNo":"M1"}', 'amount=1.50&mchNo=M1')
    expect(stringToSign).toBe('amount=1.5&mchNo=M1')
    expect(causes[0]).toContain('as written')
  })

  it('names 1e-7 (JavaScript) and 1.0E-7 (Java) for a number the platform writes 0.0000001', () => {
    expect(diagnose('{"rate":0.0000001}', 'rate=1e-7').causes[0]).toContain('JavaScript')
    expect(diagnose('{"rate":0.0000001}', 'rate=1.0E-7').causes[0]).toContain('Java prints a double')
  })

  it('names a PHP float signed at 14 significant digits but sent at 17', () => {
    const {causes} = diagnose('{"amount":0.30000000000000004}', 'amount=0.3')
    expect(causes[0]).toContain('14 significant digits')
  })

  it('names a field outside the signed set, with the fields the platform signs', () => {
    const used = 'amount=1&mchNo=M1'
    const result = diagnose('{"amount":1,"mchNo":"M1","extra":"x"}', 'amount=1&extra=x&mchNo=M1', {used})
    expect(result.fields).toEqual(['amount', 'mchNo'])
    expect(result.causes[0]).toMatch(/outside the signed set: the signature covers extra/)
  })

  it('names an amount signed as 1.50 (yuan) but sent as 150 (cents), and the reverse, before blaming the key', () => {
    expect(diagnose('{"amount":150,"mchNo":"M1","quantity":2}', 'amount=1.50&mchNo=M1&quantity=2').causes[0]).toBe(
      'a value signed in another form than it was sent: amount signed as 1.50 but sent as 150 (yuan signed, cents sent); sign exactly the values you send',
    )
    expect(diagnose('{"amount":1.5,"mchNo":"M1"}', 'amount=150&mchNo=M1').causes[0]).toContain('amount signed as 150 but sent as 1.5 (cents signed, yuan sent)')
  })

  it('names a whole JSON body signed as text: as sent, compact, or with sorted keys', () => {
    const sent = '{"mchNo": "M1", "amount": 1, "sign": "x"}'
    for (const signedText of ['{"mchNo": "M1", "amount": 1}', '{"mchNo":"M1","amount":1}', '{"amount":1,"mchNo":"M1"}']) {
      const body = parseJsonObject(sent)
      const signature = signString(signedText, loadPrivateKey(merchant.privateKeyPem))
      expect(diagnoseReceivedSignature(body, canonicalString(body), signature, publicKey, sent).causes[0]).toMatch(/^the JSON text of the body was signed/)
    }
  })

  it('names values form-encoded (a space as +) and a string built as a query string', () => {
    expect(diagnose('{"mchNo":"M1","title":"Tea for two"}', 'mchNo=M1&title=Tea+for+two').causes[0]).toMatch(/^values form-encoded/)
    expect(diagnose('{"goodsDetail":[{"goodsId":"A 1"}],"mchNo":"M1"}', 'goodsDetail%5B0%5D.goodsId=A+1&mchNo=M1').causes[0]).toMatch(/query string/)
  })

  it('names a hex signature, and one another key size made', () => {
    const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex')
    expect(diagnose('{"amount":1,"mchNo":"M1"}', 'amount=1&mchNo=M1', {encode: hex}).causes).toEqual(['the signature was sent hex-encoded: send it in standard Base64'])
    const short = Buffer.alloc(128, 1).toString('base64')
    expect(diagnose('{"amount":1,"mchNo":"M1"}', 'amount=1&mchNo=M1', {encode: () => short}).causes[0]).toMatch(/^the signature is 128 bytes, where this merchant's registered 2048-bit key makes 256/)
  })

  it('says when nothing explains it, and only then suspects the key, pointing to `unipay ping`', () => {
    const {causes} = diagnose('{"amount":1,"mchNo":"M1"}', 'amount=1&mchNo=M1', {signedBy: stranger.privateKeyPem})
    expect(causes).toHaveLength(1)
    expect(causes[0]).toMatch(/^nothing tried explains it: none of \d+ strings .*key that signed is likely not that one.*unipay ping/)
  })

  it('reads the top-level fields of a string to sign', () => {
    expect(signedFields('a.b=1&a.c=2&d[0].e=3&f=')).toEqual(['a', 'd', 'f'])
    expect(signedFields('')).toEqual([])
  })
})
