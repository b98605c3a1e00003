// Once per run: the key pairs every test sandbox starts with. A sandbox makes three RSA-2048
// pairs on its first start (about 1 s of CPU); the suite starts dozens, so they are made here
// once and written into each test's data folder before its sandbox starts (see
// test/helpers/sandbox-keys.ts). Tests about key generation itself make their own.
// And a dist/ built from the src/ of now (test/helpers/fresh-dist.ts): command tests load the
// compiled CLI, so `npx vitest run FILE` after an edit builds first (`npm test` has just built).
import {generateKeyPair} from 'node:crypto'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'
import type {TestProject} from 'vitest/node'
import {ensureFreshDist} from './helpers/fresh-dist.js'
import {SANDBOX_KEY_NAMES, type SandboxKeys} from './helpers/sandbox-keys.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxKeys: SandboxKeys
  }
}

export default async function setup(project: TestProject): Promise<void> {
  // in watch mode, again before each rerun (an edit in src/ is what usually starts one)
  project.onTestsRerun(() => ensureFreshDist(ROOT))
  const [, pairs] = await Promise.all([ensureFreshDist(ROOT), Promise.all(SANDBOX_KEY_NAMES.map(makePair))])
  project.provide('sandboxKeys', Object.fromEntries(pairs) as SandboxKeys)
}

async function makePair(name: (typeof SANDBOX_KEY_NAMES)[number]) {
  const {privateKey, publicKey} = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: {format: 'pem', type: 'pkcs8'},
    publicKeyEncoding: {format: 'pem', type: 'spki'},
  })
  return [name, {privateKeyPem: privateKey, publicKeyPem: publicKey}] as const
}
