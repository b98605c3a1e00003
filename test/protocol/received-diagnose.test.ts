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

function diagnose(json: string, clientString: string, options: {signedBy?: string; used?: string} = {}) {
  const body = parseJsonObject(json)
  const signature = signString(clientString, loadPrivateKey(options.signedBy ?? merchant.privateKeyPem))
  return diagnoseReceivedSignature(body, options.used ?? canonicalString(body), signature, publicKey)
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

  it('falls back to a key mismatch, pointing to `unipay ping`', () => {
    const {causes} = diagnose('{"amount":1,"mchNo":"M1"}', 'amount=1&mchNo=M1', {signedBy: stranger.privateKeyPem})
    expect(causes).toHaveLength(1)
    expect(causes[0]).toMatch(/key mismatch.*unipay ping/)
  })

  it('reads the top-level fields of a string to sign', () => {
    expect(signedFields('a.b=1&a.c=2&d[0].e=3&f=')).toEqual(['a', 'd', 'f'])
    expect(signedFields('')).toEqual([])
  })
})
