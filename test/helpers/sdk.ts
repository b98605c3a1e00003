// What an official SDK does to sign a request, written independently of src/protocol so that
// the sandbox is checked against an outside signer: its own flattening, jsrsasign for RSA.
import {randomBytes} from 'node:crypto'
import jsrsasign from 'jsrsasign'

/** A number no earlier request used: the prefix and 12 random hex digits. */
export const unique = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`

/** The SDK's reqTime: now in GMT+8, yyyy-MM-dd HH:mm:ss. */
const sdkTime = () => new Date(Date.now() + 8 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19)

/** The common fields an SDK fills, in its order, for the local sandbox's default merchant. */
export const sdkCommon = () => ({mchNo: 'M1000000001', appId: 'A1000000001', reqId: unique('R'), nonceStr: randomBytes(16).toString('hex'), reqTime: sdkTime()})

function flatten(value: unknown, key: string, out: [string, string][]): void {
  if (value === null || value === undefined) return
  if (Array.isArray(value)) return value.forEach((item, index) => flatten(item, `${key}[${index}]`, out))
  if (typeof value === 'object') {
    for (const [child, item] of Object.entries(value)) flatten(item, key ? `${key}.${child}` : child, out)
    return
  }
  out.push([key, String(value)])
}

/** The SDK's string to sign: every field it sends but `sign`, nulls skipped, sorted by code unit. */
export function sdkString(body: Record<string, unknown>): string {
  const out: [string, string][] = []
  for (const [key, value] of Object.entries(body)) if (key.toLowerCase() !== 'sign') flatten(value, key, out)
  out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return out.map(([k, v]) => `${k}=${v}`).join('&')
}

export function oracleSign(text: string, privateKeyPem: string): string {
  const signer = new jsrsasign.KJUR.crypto.Signature({alg: 'SHA256withRSA'})
  signer.init(privateKeyPem)
  signer.updateString(text)
  return jsrsasign.hextob64(signer.sign())
}

export function oracleVerify(text: string, signatureBase64: string, publicKeyPem: string): boolean {
  const verifier = new jsrsasign.KJUR.crypto.Signature({alg: 'SHA256withRSA'})
  verifier.init(publicKeyPem)
  verifier.updateString(text)
  return verifier.verify(jsrsasign.b64tohex(signatureBase64))
}

/** The body as the SDK sends it: its fields in its order, `sign` last. */
export function sdkSigned(body: Record<string, unknown>, privateKeyPem: string): Record<string, unknown> {
  return {...body, sign: oracleSign(sdkString(body), privateKeyPem)}
}

/** epay V2 merchant SDK: drops sign, sign_type, and values empty after trimming; sorts; RSA. */
export function epayV2Sign(params: Record<string, string>, privateKeyPem: string): string {
  const pairs = Object.entries(params).filter(([k, v]) => k !== 'sign' && k !== 'sign_type' && v.trim() !== '')
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return oracleSign(pairs.map(([k, v]) => `${k}=${v}`).join('&'), privateKeyPem)
}

/** The V2 SDK's check of a notification: its selection, the platform public key. */
export function epayV2Verify(params: Record<string, string>, publicKeyPem: string): boolean {
  const pairs = Object.entries(params).filter(([k, v]) => k !== 'sign' && k !== 'sign_type' && v.trim() !== '')
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return oracleVerify(pairs.map(([k, v]) => `${k}=${v}`).join('&'), params.sign, publicKeyPem)
}
