// One starter of a sandbox at a time, background or foreground: the others wait for the
// runtime file it publishes.
import {closeSync, mkdirSync, openSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {sandboxDir, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {TransportError} from '../errors.js'
import {modifiedMs, readRuntime, responds} from './liveness.js'

/** How long a start may take before a waiting command gives up (and a lock counts as stale). */
export const START_TIMEOUT_MS = 20_000

export const startLock = (dataDir: string) => join(sandboxDir(dataDir), 'start.lock')

/**
 * Takes the start lock of a folder. Resolves once the lock is taken (undefined), or with the sandbox another starter
 * brought up meanwhile.
 */
export async function takeStartLock(dataDir: string, deadline: number, notice: (message: string) => void): Promise<SandboxRuntime | undefined> {
  mkdirSync(sandboxDir(dataDir), {recursive: true, mode: 0o700})
  const lock = startLock(dataDir)
  let told = false
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'))
      return undefined
    } catch {
      if (Date.now() - modifiedMs(lock) > START_TIMEOUT_MS) rmSync(lock, {force: true})
      const other = readRuntime(dataDir)
      if (other && (await responds(other.url))) return other
      if (Date.now() > deadline) throw new TransportError(`the local sandbox did not start within ${START_TIMEOUT_MS / 1000}s`)
      if (!told) notice(`waiting for the local sandbox that another command is starting for ${dataDir}`)
      told = true
      await sleep(50)
    }
  }
}
