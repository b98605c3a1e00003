// Once per run: the key pairs every test sandbox starts with. A sandbox makes three RSA-2048
// pairs on its first start (about 1 s of CPU); the suite starts dozens, so they are made here
// once and written into each test's data folder before its sandbox starts (see
// test/helpers/sandbox-keys.ts). Tests about key generation itself make their own.
import {generateKeyPair} from 'node:crypto'
import {promisify} from 'node:util'
import type {TestProject} from 'vitest/node'
import {SANDBOX_KEY_NAMES, type SandboxKeys} from './helpers/sandbox-keys.js'

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxKeys: SandboxKeys
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const pairs = await Promise.all(
    SANDBOX_KEY_NAMES.map(async (name) => {
      const {privateKey, publicKey} = await promisify(generateKeyPair)('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: {format: 'pem', type: 'pkcs8'},
        publicKeyEncoding: {format: 'pem', type: 'spki'},
      })
      return [name, {privateKeyPem: privateKey, publicKeyPem: publicKey}] as const
    }),
  )
  project.provide('sandboxKeys', Object.fromEntries(pairs) as SandboxKeys)
}
