// SHA256withRSA (PKCS#1 v1.5) over the UTF-8 string to sign, Base64 with padding.
import {createSign, createVerify, sign, verify, type KeyObject} from 'node:crypto'
import {canonicalString} from './canonical.js'

export function signString(text: string, privateKey: KeyObject): string {
  return createSign('RSA-SHA256').update(text, 'utf8').sign(privateKey, 'base64')
}

/**
 * The same signature, made on libuv's thread pool: RSA signing is most of the CPU of a signed
 * answer, and off the main thread a server signs on every core while it goes on parsing.
 */
export function signStringAsync(text: string, privateKey: KeyObject): Promise<string> {
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(text, 'utf8'), privateKey, (error, signature) => (error ? reject(error) : resolve(signature.toString('base64'))))
  })
}

export function verifyString(text: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(publicKey, signature, 'base64')
  } catch {
    return false
  }
}

/** The same check, made on the thread pool: a batch run goes on sending while its answers are verified. */
export function verifyStringAsync(text: string, signature: string, publicKey: KeyObject): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      verify('sha256', Buffer.from(text, 'utf8'), publicKey, Buffer.from(signature, 'base64'), (error, verified) => resolve(!error && verified))
    } catch {
      resolve(false)
    }
  })
}

/** Returns the body with `sign` set over its canonical string. */
export function signBody<T extends Record<string, unknown>>(body: T, privateKey: KeyObject): T & {sign: string} {
  return {...body, sign: signString(canonicalString(body), privateKey)}
}
