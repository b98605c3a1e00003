import {readFileSync} from 'node:fs'
import jsrsasign from 'jsrsasign'
import {describe, expect, it} from 'vitest'
import {canonicalString} from '../../src/protocol/canonical.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {parseJsonObject} from '../../src/protocol/json.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {signString, signStringAsync, verifyString} from '../../src/protocol/signature.js'

interface Vector {
  name: string
  requestBody: string
  rawBody: string
  canonicalString: string
  signature: string
}
const vectors: {
  keys: Record<'merchant' | 'platform', {privateKeyPkcs8Pem: string; publicKeySpkiPem: string}>
  requestVectors: Vector[]
  responseVectors: Vector[]
} = JSON.parse(readFileSync(new URL('../fixtures/unipay-sign.json', import.meta.url), 'utf8'))
const merchantPrivate = loadPrivateKey(vectors.keys.merchant.privateKeyPkcs8Pem)
const merchantPublic = loadPublicKey(vectors.keys.merchant.publicKeySpkiPem)
const platformPrivate = loadPrivateKey(vectors.keys.platform.privateKeyPkcs8Pem)
const platformPublic = loadPublicKey(vectors.keys.platform.publicKeySpkiPem)

/** jsrsasign as an independent oracle for SHA256withRSA. */
function oracleSign(text: string, pem: string): string {
  const signer = new jsrsasign.KJUR.crypto.Signature({alg: 'SHA256withRSA'})
  signer.init(pem)
  signer.updateString(text)
  return jsrsasign.hextob64(signer.sign())
}

function oracleVerify(text: string, signature: string, pem: string): boolean {
  const verifier = new jsrsasign.KJUR.crypto.Signature({alg: 'SHA256withRSA'})
  verifier.init(pem)
  verifier.updateString(text)
  return verifier.verify(jsrsasign.b64tohex(signature))
}

describe('request vectors', () => {
  it.each(vectors.requestVectors.map((v): [string, Vector] => [v.name, v]))('%s', (_name, vector) => {
    const body = parseJsonObject(vector.requestBody)
    expect(canonicalString(body)).toBe(vector.canonicalString)
    expect(signString(vector.canonicalString, merchantPrivate)).toBe(vector.signature)
    expect(body.sign).toBe(vector.signature)
    expect(verifyString(vector.canonicalString, vector.signature, merchantPublic)).toBe(true)
    expect(oracleSign(vector.canonicalString, vectors.keys.merchant.privateKeyPkcs8Pem)).toBe(vector.signature)
    expect(oracleVerify(vector.canonicalString, vector.signature, vectors.keys.merchant.publicKeySpkiPem)).toBe(true)
  })

  it('signs the same string from the parameters as given (JS values, not parsed text)', () => {
    const vector = vectors.requestVectors.find((v) => v.name === 'pay-goods-terminal') as Vector & {paramsAsGiven: Record<string, unknown>}
    const body = {...vector.paramsAsGiven, mchNo: 'M1700000001', appId: 'A1700000001'}
    expect(canonicalString(body)).toBe(vector.canonicalString)
  })
})

describe('response vectors', () => {
  it.each(vectors.responseVectors.map((v): [string, Vector] => [v.name, v]))('%s', async (_name, vector) => {
    const read = readEnvelope(vector.rawBody, platformPublic)
    expect(read.canonical).toBe(vector.canonicalString)
    expect(read.verified).toBe(true)
    expect(signString(vector.canonicalString, platformPrivate)).toBe(vector.signature)
    // the sandbox signs its answers on the thread pool: the same bytes
    expect(await signStringAsync(vector.canonicalString, platformPrivate)).toBe(vector.signature)
    expect(oracleVerify(vector.canonicalString, vector.signature, vectors.keys.platform.publicKeySpkiPem)).toBe(true)
  })

  it('does not verify a response signed with the merchant key', () => {
    const vector = vectors.responseVectors[0]
    expect(readEnvelope(vector.rawBody, merchantPublic).verified).toBe(false)
  })

  it('does not verify a tampered response', () => {
    const vector = vectors.responseVectors[0]
    expect(readEnvelope(vector.rawBody.replace('"progress"', '"success"'), platformPublic).verified).toBe(false)
  })
})
