// Merchant key pairs written to disk: the private key owner-only, never printed.
import {chmodSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {UsageError} from '../errors.js'
import {generateRsaKeyPair, keyFingerprint, loadPublicKey} from '../protocol/keys.js'

const WRITE_ERRORS: Record<string, string> = {
  EEXIST: 'a file, not a folder, is in the way',
  ENOTDIR: 'a file, not a folder, is in the way',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left',
  ENOENT: 'a folder cannot be made there',
}

/** mkdir -p one level at a time: Node 20's recursive mkdir never returns in some folders (/proc). */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return
  makeDirs(dirname(dir))
  mkdirSync(dir, {mode: 0o700})
}

export interface WrittenKeyPair {
  privateKeyFile: string
  publicKeyFile: string
  fingerprint: string
  publicKeyPem: string
}

/** Generates a 2048-bit pair and writes NAME-private.pem (0600) and NAME-public.pem in `dir`. */
export function writeKeyPair(dir: string, name: string, force = false): WrittenKeyPair {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new UsageError('--name: use letters, digits, _ . -')
  const privateKeyFile = join(dir, `${name}-private.pem`)
  const publicKeyFile = join(dir, `${name}-public.pem`)
  if (!force && (existsSync(privateKeyFile) || existsSync(publicKeyFile))) {
    throw new UsageError(`${privateKeyFile} or its public key exists; pass --force to overwrite`)
  }
  const pair = generateRsaKeyPair()
  try {
    makeDirs(dir)
    writeFileSync(privateKeyFile, pair.privateKeyPem, {mode: 0o600})
    chmodSync(privateKeyFile, 0o600) // the mode option only applies to a new file (--force)
    writeFileSync(publicKeyFile, pair.publicKeyPem, {mode: 0o644})
  } catch (error) {
    const {code, path} = error as NodeJS.ErrnoException
    if (!code) throw error
    const why = WRITE_ERRORS[code] ?? code
    throw new UsageError(`--out-dir ${dir}: cannot write the key files there: ${why}${path && path !== dir ? ` (${path})` : ''}`)
  }
  return {privateKeyFile, publicKeyFile, fingerprint: keyFingerprint(loadPublicKey(pair.publicKeyPem)), publicKeyPem: pair.publicKeyPem}
}
