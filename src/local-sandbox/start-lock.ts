// One starter of a sandbox at a time, background or foreground: the others wait for the
// runtime file it publishes.
import {closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {sandboxDir, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {TransportError} from '../errors.js'
import {modifiedMs, processAlive, processStart, readRuntime, responds} from './liveness.js'

/**
 * How long a start may take before the starter, or a command waiting for it, gives up. A limit,
 * never a measure: a start takes well under a second, and a machine busy enough to make it take
 * tens of seconds must get an error at worst, never a second sandbox on the same journal.
 */
export const START_TIMEOUT_MS = 60_000

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
    if (created(lock)) return undefined
    if (abandoned(lock)) rmSync(lock, {force: true})
    const other = readRuntime(dataDir)
    if (other && (await responds(other.url))) return other
    if (Date.now() > deadline) throw new TransportError(`the local sandbox did not start within ${START_TIMEOUT_MS / 1000}s`)
    if (!told) notice(`waiting for the local sandbox that another command is starting for ${dataDir}`)
    told = true
    await sleep(50)
  }
}

/**
 * Creates the lock, naming its holder (this process: pid and start time), so that it is taken
 * over only once that process is gone, however long its start takes; false when it exists.
 */
function created(lock: string): boolean {
  let fd: number
  try {
    fd = openSync(lock, 'wx')
  } catch {
    return false
  }
  try {
    writeSync(fd, `${process.pid} ${processStart(process.pid) ?? ''}`)
  } finally {
    closeSync(fd)
  }
  return true
}

/** Whether a start lock's holder is gone; a lock without a pid (cut short as it was written) counts as gone past the start timeout. */
function abandoned(lock: string): boolean {
  let text: string
  try {
    text = readFileSync(lock, 'utf8')
  } catch {
    return false // gone already
  }
  const [pid, started] = text.split(' ')
  const holder = Number(pid)
  if (Number.isSafeInteger(holder) && holder > 0) return !processAlive(holder, started || undefined)
  return Date.now() - modifiedMs(lock) > START_TIMEOUT_MS
}
