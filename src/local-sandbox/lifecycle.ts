// Starting and stopping the local sandbox: in the background when a command needs it, in the
// foreground for a container or a CI job, and its wipe.
import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, openSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {sandboxDir, sandboxPortFile, sandboxRuntimeFile, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {TransportError, UsageError} from '../errors.js'
import {DAEMON, isSandboxProcess, processAlive, readRuntime, responds} from './liveness.js'
import {describeRuntime, findRunning, noteElsewhere, sandboxesElsewhere, type SandboxLocation} from './location.js'
import {START_TIMEOUT_MS, startLock, takeStartLock} from './start-lock.js'

export interface StartSettings {
  port?: number
  timeScale?: number
  tokenTtlSeconds?: number
}

/**
 * Returns the sandbox a command reaches (see findRunning), starting it in the background first
 * when none runs. A start asked for (`explicit`: `sandbox start`) starts one for its own folder,
 * and says so when another runs for another folder: a second sandbox is never started unawares.
 */
export async function ensureSandbox(
  location: SandboxLocation,
  settings: StartSettings = {},
  notice: (message: string) => void = () => {},
  {explicit = false} = {},
): Promise<{runtime: SandboxRuntime; started: boolean}> {
  const {dataDir} = location
  const own = readRuntime(dataDir)
  if (own && (await responds(own.url))) return {runtime: own, started: false}
  // alive but silent (busy): a second one would write the same journal, so wait for this one instead
  if (own && isSandboxProcess(own.pid)) return {runtime: await answering(own, Date.now() + START_TIMEOUT_MS), started: false}
  if (explicit) {
    const [other] = location.dataDir === location.home ? await sandboxesElsewhere(location.home) : []
    if (other) notice(`starting a second sandbox, for ${dataDir}: another runs for ${describeRuntime(other)}`)
  } else {
    const running = await findRunning(location, notice)
    if (running) return {runtime: running, started: false}
  }
  const dir = sandboxDir(dataDir)
  const deadline = Date.now() + START_TIMEOUT_MS
  const other = await takeStartLock(dataDir, deadline, notice)
  if (other) return {runtime: other, started: false}
  try {
    const again = readRuntime(dataDir)
    if (again && (await responds(again.url))) return {runtime: again, started: false}
    if (again && isSandboxProcess(again.pid)) return {runtime: await answering(again, deadline), started: false}
    rmSync(sandboxRuntimeFile(dataDir), {force: true})
    const log = openSync(join(dir, 'sandbox.log'), 'a', 0o600)
    // an explicit --port is required; else the last port is taken again when free
    const remembered = rememberedPort(dataDir)
    const portArgs = settings.port !== undefined ? ['--port', String(settings.port)] : remembered ? ['--preferred-port', String(remembered)] : []
    const args = [DAEMON, '--data-dir', dataDir, ...portArgs, '--time-scale', String(settings.timeScale ?? 1)]
    if (settings.tokenTtlSeconds) args.push('--token-ttl', String(settings.tokenTtlSeconds))
    const child = spawn(process.execPath, args, {detached: true, stdio: ['ignore', log, log]})
    closeSync(log)
    child.unref()
    notice(`starting the local sandbox in the background (pid ${child.pid}, log ${join(dir, 'sandbox.log')})`)
    while (Date.now() < deadline) {
      const runtime = readRuntime(dataDir)
      if (runtime && runtime.pid === child.pid) {
        const port = Number(new URL(runtime.url).port)
        if (remembered && settings.port === undefined && port !== remembered) {
          notice(`port ${remembered} is taken: the sandbox now listens on ${port}, so links printed earlier no longer work (\`sandbox start --port\` fixes a port)`)
        }
        noteElsewhere(location)
        return {runtime, started: true}
      }
      if (child.exitCode !== null) break
      await sleep(30)
    }
    // given up on: it must not come up later beside the one the next command starts
    if (child.exitCode === null) child.kill('SIGKILL')
    throw new TransportError(`the local sandbox did not start; see ${join(dir, 'sandbox.log')}`)
  } finally {
    rmSync(startLock(dataDir), {force: true})
  }
}

/** The running sandbox once it answers; a TransportError naming it when it stays silent past the deadline. */
async function answering(runtime: SandboxRuntime, deadline: number): Promise<SandboxRuntime> {
  while (Date.now() < deadline) {
    if (!processAlive(runtime.pid)) throw new TransportError(`the local sandbox (pid ${runtime.pid}) stopped while it was busy; run the command again to start it`)
    if (await responds(runtime.url)) return runtime
    await sleep(100)
  }
  throw new TransportError(`the local sandbox (pid ${runtime.pid}, ${runtime.url}) runs but does not answer; \`unipay sandbox stop\` stops it (a second one is not started beside it)`)
}

/** The port the sandbox last listened on, if any. */
function rememberedPort(dataDir: string): number | undefined {
  try {
    const port = Number(readFileSync(sandboxPortFile(dataDir), 'utf8').trim())
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined
  } catch {
    return undefined
  }
}

export interface ForegroundSettings extends StartSettings {
  host?: string
}

/**
 * Runs the sandbox in this terminal (a container, a CI job): its output on ours, SIGTERM and
 * SIGINT passed on so it stops cleanly. Resolves with its exit code.
 */
export async function runForeground(location: SandboxLocation, settings: ForegroundSettings, notice: (message: string) => void = () => {}): Promise<number> {
  const {dataDir} = location
  const refuse = (running: SandboxRuntime) =>
    new UsageError(`a sandbox already runs for ${dataDir} (pid ${running.pid}, ${running.url}): stop it first (\`unipay sandbox stop\`) or give another --data-dir`)
  // the lock a background start takes: a command run meanwhile waits for this sandbox instead of starting its own
  const deadline = Date.now() + START_TIMEOUT_MS
  const started = await takeStartLock(dataDir, deadline, notice)
  if (started) throw refuse(started)
  let locked = true
  const unlock = () => {
    if (locked) rmSync(startLock(dataDir), {force: true})
    locked = false
  }
  let child: ChildProcess | undefined
  const forward = (signal: NodeJS.Signals) => () => child?.kill(signal)
  const onTerm = forward('SIGTERM')
  const onInt = forward('SIGINT')
  try {
    const running = readRuntime(dataDir)
    if (running && ((await responds(running.url)) || isSandboxProcess(running.pid))) throw refuse(running)
    const [other] = location.dataDir === location.home ? await sandboxesElsewhere(location.home) : []
    if (other) notice(`starting a second sandbox, for ${dataDir}: another runs for ${describeRuntime(other)}`)
    noteElsewhere(location)
    const remembered = rememberedPort(dataDir)
    const portArgs = settings.port !== undefined ? ['--port', String(settings.port)] : remembered ? ['--preferred-port', String(remembered)] : []
    const args = [DAEMON, '--data-dir', dataDir, '--host', settings.host ?? '127.0.0.1', ...portArgs, '--time-scale', String(settings.timeScale ?? 1), '--log-requests']
    if (settings.tokenTtlSeconds) args.push('--token-ttl', String(settings.tokenTtlSeconds))
    const daemon = spawn(process.execPath, args, {stdio: ['ignore', 'inherit', 'inherit']})
    child = daemon
    process.on('SIGTERM', onTerm)
    process.on('SIGINT', onInt)
    const exited = new Promise<number>((resolve, reject) => {
      daemon.once('error', reject)
      daemon.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + 15 : 1)))
    })
    // held until the sandbox has published its address (or has stopped), however long that takes:
    // released earlier, a command run meanwhile would start a second sandbox on the same journal
    await Promise.race([published(dataDir, daemon), exited]).finally(unlock)
    return await exited
  } finally {
    unlock()
    process.off('SIGTERM', onTerm)
    process.off('SIGINT', onInt)
  }
}

/** Resolves once the daemon has published its runtime file or has stopped. */
async function published(dataDir: string, daemon: ChildProcess): Promise<void> {
  while (daemon.exitCode === null && daemon.signalCode === null) {
    if (readRuntime(dataDir)?.pid === daemon.pid) return
    await sleep(30)
  }
}

/** Stops the sandbox; true when one was running. */
export async function stopSandbox(dataDir: string): Promise<boolean> {
  const runtime = readRuntime(dataDir)
  // a runtime file left by a crash may name a pid now used by an unrelated process
  if (!runtime || !isSandboxProcess(runtime.pid)) {
    rmSync(sandboxRuntimeFile(dataDir), {force: true})
    return false
  }
  process.kill(runtime.pid, 'SIGTERM')
  for (let waited = 0; waited < 5000; waited += 20) {
    if (!processAlive(runtime.pid)) return true
    await sleep(20)
  }
  process.kill(runtime.pid, 'SIGKILL')
  rmSync(sandboxRuntimeFile(dataDir), {force: true})
  return true
}

/** Wipes the sandbox's orders and callbacks; keys (and so the local credentials) stay. */
export async function resetSandbox(dataDir: string): Promise<void> {
  await stopSandbox(dataDir)
  rmSync(join(sandboxDir(dataDir), 'journal.jsonl'), {force: true})
}
