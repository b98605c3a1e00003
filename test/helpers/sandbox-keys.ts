// Writes the run's shared sandbox key pairs (made once by test/global-setup.ts) into a data
// folder, where the sandbox's first start finds them instead of generating its own.
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
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
