// The sandbox platform's key pair and the default merchant's credentials, created on first
// start and kept in the data folder (private keys 0600), like credentials issued at registration.
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {generateRsaKeyPair} from '../protocol/keys.js'

interface KeyFiles {
  privateKeyFile: string
  privateKeyPem: string
  publicKeyPem: string
}

export function ensureKeyPair(dir: string, name: string): KeyFiles {
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const privateKeyFile = join(dir, `${name}-private.pem`)
  const publicKeyFile = join(dir, `${name}-public.pem`)
  if (!existsSync(privateKeyFile) || !existsSync(publicKeyFile)) {
    const pair = generateRsaKeyPair()
    writeFileSync(privateKeyFile, pair.privateKeyPem, {mode: 0o600})
    chmodSync(privateKeyFile, 0o600)
    writeFileSync(publicKeyFile, pair.publicKeyPem, {mode: 0o644})
  }
  return {
    privateKeyFile,
    privateKeyPem: readFileSync(privateKeyFile, 'utf8'),
    publicKeyPem: readFileSync(publicKeyFile, 'utf8'),
  }
}
