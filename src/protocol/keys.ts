// RSA keys from PEM or bare Base64 DER (whitespace ignored), in every encoding merchants are
// handed: PKCS#8 or PKCS#1 private keys, SPKI or PKCS#1 public keys.
import {createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject} from 'node:crypto'

export class KeyFormatError extends Error {}

function derCandidates(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined
  return Buffer.from(compact, 'base64')
}

export function loadPrivateKey(text: string): KeyObject {
  const trimmed = text.trim()
  try {
    if (trimmed.startsWith('-----BEGIN')) return createPrivateKey({key: trimmed, format: 'pem'})
    const der = derCandidates(trimmed)
    if (der) {
      for (const type of ['pkcs8', 'pkcs1'] as const) {
        try {
          return createPrivateKey({key: der, format: 'der', type})
        } catch {
          // try the next encoding
        }
      }
    }
  } catch {
    // reported below without echoing the key material
  }
  throw new KeyFormatError('not an RSA private key (expected PEM or Base64 DER, PKCS#8 or PKCS#1)')
}

export function loadPublicKey(text: string): KeyObject {
  const trimmed = text.trim()
  try {
    // createPublicKey would derive a public key from a private one: refuse, a private key in
    // the place of a public one is a mistake (and a leak waiting to happen)
    if (trimmed.startsWith('-----BEGIN') && !/PRIVATE KEY-----/.test(trimmed)) return createPublicKey({key: trimmed, format: 'pem'})
    const der = derCandidates(trimmed)
    if (der) {
      for (const type of ['spki', 'pkcs1'] as const) {
        try {
          return createPublicKey({key: der, format: 'der', type})
        } catch {
          // try the next encoding
        }
      }
    }
  } catch {
    // reported below
  }
  throw new KeyFormatError('not an RSA public key (expected PEM or Base64 DER, SPKI or PKCS#1)')
}

export function publicKeyPem(key: KeyObject): string {
  return (key.type === 'private' ? createPublicKey(key) : key).export({format: 'pem', type: 'spki'}).toString()
}

/** A short, safe-to-print name for a key: SHA-256 of its SPKI DER. */
export function keyFingerprint(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key
  const der = publicKey.export({format: 'der', type: 'spki'})
  return 'SHA256:' + createHash('sha256').update(der).digest('base64').replace(/=+$/, '').slice(0, 16)
}

export function generateRsaKeyPair(): {privateKeyPem: string; publicKeyPem: string} {
  const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
  return {
    privateKeyPem: privateKey.export({format: 'pem', type: 'pkcs8'}).toString(),
    publicKeyPem: publicKey.export({format: 'pem', type: 'spki'}).toString(),
  }
}
