// SHA256withRSA (PKCS#1 v1.5) over the UTF-8 string to sign, Base64 with padding.
import {createSign, createVerify, type KeyObject} from 'node:crypto'
import {canonicalString} from './canonical.js'

export function signString(text: string, privateKey: KeyObject): string {
  return createSign('RSA-SHA256').update(text, 'utf8').sign(privateKey, 'base64')
}

export function verifyString(text: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(publicKey, signature, 'base64')
  } catch {
    return false
  }
}

/** Returns the body with `sign` set over its canonical string. */
export function signBody<T extends Record<string, unknown>>(body: T, privateKey: KeyObject): T & {sign: string} {
  return {...body, sign: signString(canonicalString(body), privateKey)}
}
