// Writes the run's shared sandbox key pairs (made once by test/global-setup.ts) into a data
// folder, where the sandbox's first start finds them instead of generating its own.
import {generateKeyPair} from 'node:crypto'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {inject} from 'vitest'
import {sandboxDir} from '../../src/protocol/local-sandbox.js'

export const SANDBOX_KEY_NAMES = ['platform', 'merchant', 'login'] as const
export type SandboxKeys = Record<(typeof SANDBOX_KEY_NAMES)[number], {privateKeyPem: string; publicKeyPem: string}>

/** `dataDir` is the unipay data folder (the one that holds `sandbox/`). */
export function seedSandboxKeys(dataDir: string): void {
  const dir = join(sandboxDir(dataDir), 'keys')
  if (existsSync(dir)) return
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const keys = inject('sandboxKeys')
  for (const name of SANDBOX_KEY_NAMES) {
    // the modes the sandbox itself gives them (src/sandbox/keys.ts)
    writeFileSync(join(dir, `${name}-private.pem`), keys[name].privateKeyPem, {mode: 0o600})
    writeFileSync(join(dir, `${name}-public.pem`), keys[name].publicKeyPem, {mode: 0o644})
  }
}

/**
 * A new RSA-2048 key pair (PEM), made on the thread pool: made on the test's own thread, it can
 * hold the event loop for seconds on a busy machine, past the sandbox's 5 s keep-alive, and the
 * next request then meets a connection the in-process sandbox is closing (ECONNRESET).
 */
export async function newKeyPair(): Promise<{privateKeyPem: string; publicKeyPem: string}> {
  const {privateKey, publicKey} = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: {format: 'pem', type: 'pkcs8'},
    publicKeyEncoding: {format: 'pem', type: 'spki'},
  })
  return {privateKeyPem: privateKey, publicKeyPem: publicKey}
}
