// RSA keys from PEM or bare Base64 DER (whitespace ignored), in every encoding merchants are
// handed: PKCS#8 or PKCS#1 private keys, SPKI or PKCS#1 public keys. The protocol signs with
// SHA256withRSA only, so any other kind of key, or an RSA key too short to be safe, is refused
// here rather than failing later with a crypto error.
import {createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject} from 'node:crypto'

export class KeyFormatError extends Error {}

const MIN_RSA_BITS = 2048

const KEY_TYPE_NAMES: Record<string, string> = {ec: 'EC', ed25519: 'Ed25519', ed448: 'Ed448', dsa: 'DSA', 'rsa-pss': 'RSA-PSS', x25519: 'X25519', x448: 'X448', dh: 'DH'}

/** The key, if it is RSA of at least MIN_RSA_BITS; otherwise a message that says what it is. */
function usableRsa(key: KeyObject): KeyObject {
  const type = key.asymmetricKeyType
  if (type !== 'rsa') {
    const curve = key.asymmetricKeyDetails?.namedCurve
    const what = `${KEY_TYPE_NAMES[type ?? ''] ?? type ?? 'unknown'}${curve ? ` (${curve})` : ''}`
    throw new KeyFormatError(`the key is ${what}, not RSA: the platform signs with SHA256withRSA only; use an RSA key of ${MIN_RSA_BITS} bits or more (unipay keys generate)`)
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
  if (bits < MIN_RSA_BITS) throw new KeyFormatError(`an RSA key of ${bits} bits is too short: use ${MIN_RSA_BITS} bits or more (unipay keys generate)`)
  return key
}

/** A passphrase-protected PEM (PKCS#8 ENCRYPTED or a legacy Proc-Type header). */
function isEncryptedPem(text: string): boolean {
  return /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/.test(text)
}

function derCandidates(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined
  return Buffer.from(compact, 'base64')
}

/** A private key; `passphrase` opens an encrypted PEM, which is otherwise refused with the way to decrypt it. */
export function loadPrivateKey(text: string, passphrase?: string): KeyObject {
  const trimmed = text.trim()
  if (isEncryptedPem(trimmed) && passphrase === undefined) {
    throw new KeyFormatError('the private key is encrypted (it has a passphrase): decrypt it once with `openssl pkey -in enc.pem -out plain.pem` and use plain.pem (chmod 600)')
  }
  let key: KeyObject | undefined
  try {
    if (trimmed.startsWith('-----BEGIN')) key = createPrivateKey({key: trimmed, format: 'pem', passphrase})
    const der = key ? undefined : derCandidates(trimmed)
    if (der) {
      for (const type of ['pkcs8', 'pkcs1'] as const) {
        try {
          key = createPrivateKey({key: der, format: 'der', type})
          break
        } catch {
          // try the next encoding
        }
      }
    }
  } catch {
    if (passphrase !== undefined) throw new KeyFormatError('the passphrase does not open the encrypted private key')
    // otherwise reported below without echoing the key material
  }
  if (key) return usableRsa(key)
  throw new KeyFormatError('not an RSA private key (expected PEM or Base64 DER, PKCS#8 or PKCS#1)')
}

export function loadPublicKey(text: string): KeyObject {
  const trimmed = text.trim()
  let key: KeyObject | undefined
  try {
    // createPublicKey would derive a public key from a private one: refuse, a private key in
    // the place of a public one is a mistake (and a leak waiting to happen)
    if (trimmed.startsWith('-----BEGIN') && !/PRIVATE KEY-----/.test(trimmed)) key = createPublicKey({key: trimmed, format: 'pem'})
    const der = key ? undefined : derCandidates(trimmed)
    if (der) {
      for (const type of ['spki', 'pkcs1'] as const) {
        try {
          key = createPublicKey({key: der, format: 'der', type})
          break
        } catch {
          // try the next encoding
        }
      }
    }
  } catch {
    // reported below
  }
  if (key) return usableRsa(key)
  throw new KeyFormatError('not an RSA public key (expected PEM or Base64 DER, SPKI or PKCS#1)')
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
