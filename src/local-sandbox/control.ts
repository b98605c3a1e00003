// Starting, stopping and driving the local sandbox from the CLI. The sandbox runs as its own
// background process; the CLI finds it through the runtime file it publishes, never by import.
import {spawn, type ChildProcess} from 'node:child_process'
import {createHash} from 'node:crypto'
import {closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {CONTROL_SECRET_HEADER, sandboxDir, sandboxPortFile, sandboxRuntimeFile, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {PlatformError, TransportError, UsageError} from '../errors.js'

const DAEMON = fileURLToPath(new URL('../sandbox/main.js', import.meta.url))
const START_TIMEOUT_MS = 20_000

/**
 * Which sandbox a command uses: its data folder (`--data-dir`, else UNIPAY_SANDBOX_DIR, else the
 * CLI's own data folder, `home`). A sandbox started for another folder leaves word of itself in
 * `home`, so that a command aimed at `home` finds it instead of starting a second one unawares.
 */
export interface SandboxLocation {
  dataDir: string
  home: string
}

export const SANDBOX_DIR_ENV = 'UNIPAY_SANDBOX_DIR'

export function locateSandbox(home: string, dataDirFlag?: string, env: NodeJS.ProcessEnv = process.env): SandboxLocation {
  const chosen = dataDirFlag || env[SANDBOX_DIR_ENV] || undefined
  return {dataDir: chosen ? resolve(chosen) : home, home}
}

const elsewhereDir = (home: string) => join(sandboxDir(home), 'elsewhere')

/** Notes in `home` that a sandbox runs for another data folder (removed once it no longer runs). */
function noteElsewhere(location: SandboxLocation): void {
  if (location.dataDir === location.home) return
  const dir = elsewhereDir(location.home)
  mkdirSync(dir, {recursive: true, mode: 0o700})
  writeFileSync(join(dir, createHash('sha256').update(location.dataDir).digest('hex').slice(0, 16)), location.dataDir, {mode: 0o600})
}

/** The sandboxes started for other data folders that still run, each with its folder. */
export async function sandboxesElsewhere(home: string): Promise<SandboxRuntime[]> {
  const dir = elsewhereDir(home)
  const found: SandboxRuntime[] = []
  let notes: string[]
  try {
    notes = readdirSync(dir)
  } catch {
    return found
  }
  for (const note of notes) {
    const file = join(dir, note)
    let dataDir: string
    try {
      dataDir = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    const runtime = readRuntime(dataDir)
    if (runtime && (await responds(runtime.url))) found.push({...runtime, dataDir})
    else rmSync(file, {force: true})
  }
  return found
}

/**
 * The sandbox a command reaches: the one running for its folder; for the CLI's own folder with
 * none running there, the one running for another folder (`sandbox start --data-dir`), said in a
 * notice, when exactly one does (several: refused, exit 2, naming them). Undefined when none runs.
 */
export async function findRunning(location: SandboxLocation, notice: (message: string) => void): Promise<SandboxRuntime | undefined> {
  const here = readRuntime(location.dataDir)
  if (here && (await responds(here.url))) return here
  if (location.dataDir !== location.home) return undefined
  const others = await sandboxesElsewhere(location.home)
  if (others.length > 1) {
    throw new UsageError(`no sandbox runs for ${location.home}, and several run for other folders (${others.map(describe).join('; ')}): give --data-dir (or set ${SANDBOX_DIR_ENV}) to choose one`)
  }
  if (others.length === 1) notice(`using the sandbox running for ${describe(others[0])}: none runs for ${location.home} (--data-dir chooses)`)
  return others[0]
}

const describe = (runtime: SandboxRuntime) => `${runtime.dataDir} (pid ${runtime.pid}, ${runtime.url})`

export interface StartSettings {
  port?: number
  timeScale?: number
  tokenTtlSeconds?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// Whether a process that left its pid in a file still runs (this sandbox's runtime.json, a batch
// journal's lock): the file may outlive it (kill -9, a restart), it may linger as a zombie where
// nothing reaps orphans (some containers), and its pid may be used again by another process.

/**
 * Whether `pid` runs: signal 0 reaches it (or it runs as another user), it is not a zombie, and,
 * given the start time it was recorded with, it is not another process under a pid used again.
 */
export function processAlive(pid: number, started?: string): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const now = processStart(pid)
  if (now === 'zombie') return false
  return now === undefined || started === undefined || now === started
}

/** A process's start time in clock ticks since boot ('zombie' for one that has exited); undefined without /proc. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[0] === 'Z' ? 'zombie' : fields[19]
  } catch {
    return undefined
  }
}

/** When a file (a lock, a guard) was last written; now when it is gone, so that it never looks stale. */
export function modifiedMs(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return Date.now()
  }
}

/** The runtime of a sandbox whose process is alive, or undefined. */
export function readRuntime(dataDir: string): SandboxRuntime | undefined {
  const file = sandboxRuntimeFile(dataDir)
  if (!existsSync(file)) return undefined
  try {
    const runtime = JSON.parse(readFileSync(file, 'utf8')) as SandboxRuntime
    return processAlive(runtime.pid) ? runtime : undefined
  } catch {
    return undefined
  }
}

/**
 * A plain node:http probe: cheaper at start-up than fetch, which loads a whole HTTP client.
 * node:http is not imported: see client/http.ts.
 */
function responds(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = process.getBuiltinModule('node:http').get(`${url}/unipay/callback/ping`, {timeout: 2000}, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(false))
  })
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
    if (other) notice(`starting a second sandbox, for ${dataDir}: another runs for ${describe(other)}`)
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
    throw new TransportError(`the local sandbox did not start; see ${join(dir, 'sandbox.log')}`)
  } finally {
    rmSync(startLock(dataDir), {force: true})
  }
}

const startLock = (dataDir: string) => join(sandboxDir(dataDir), 'start.lock')

/**
 * One starter at a time, background or foreground: the others wait for the runtime file it
 * produces. Resolves once the lock is taken (undefined), or with the sandbox another starter
 * brought up meanwhile.
 */
async function takeStartLock(dataDir: string, deadline: number, notice: (message: string) => void): Promise<SandboxRuntime | undefined> {
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
    if (other) notice(`starting a second sandbox, for ${dataDir}: another runs for ${describe(other)}`)
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
    // held until the sandbox has published its address (or has stopped)
    await Promise.race([published(dataDir, daemon, deadline), exited]).finally(unlock)
    return await exited
  } finally {
    unlock()
    process.off('SIGTERM', onTerm)
    process.off('SIGINT', onInt)
  }
}

/** Resolves once the daemon has published its runtime file, has stopped, or the start deadline passed. */
async function published(dataDir: string, daemon: ChildProcess, deadline: number): Promise<void> {
  while (Date.now() < deadline && daemon.exitCode === null && daemon.signalCode === null) {
    if (readRuntime(dataDir)?.pid === daemon.pid) return
    await sleep(30)
  }
}

function isSandboxProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(DAEMON)
  } catch {
    return true // no /proc (not Linux): trust the runtime file
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

/** A call to the sandbox's control endpoints, which play the payer and the channel. */
export async function controlCall<T>(runtime: SandboxRuntime, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let response: Response
  try {
    response = await fetch(`${runtime.url}/_sandbox/${path}`, {
      method,
      headers: {'content-type': 'application/json', [CONTROL_SECRET_HEADER]: runtime.controlSecret},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (error) {
    throw new TransportError(`could not reach the local sandbox at ${runtime.url}: ${(error as Error).message}`)
  }
  // a control error, whatever its HTTP status, is {code, message}
  let answer: T & {code?: number; message?: string}
  try {
    answer = (await response.json()) as typeof answer
  } catch {
    throw new TransportError(`the local sandbox at ${runtime.url} gave an answer that is not JSON (HTTP ${response.status})`)
  }
  if (!response.ok || (answer.code !== undefined && answer.code !== 0)) {
    throw new PlatformError(answer.code ?? 1, answer.message ?? `HTTP ${response.status}`, undefined)
  }
  return answer
}

/**
 * The dashboard's sign-in address: a ticket good once, for a few minutes, traded by the browser
 * for the cookie the dashboard acts with (it never acts without the control secret).
 */
export async function dashboardSignInUrl(runtime: SandboxRuntime): Promise<string> {
  const {ticket} = await controlCall<{ticket: string}>(runtime, 'POST', 'dashboard/ticket', {})
  return `${runtime.url}/dashboard?ticket=${encodeURIComponent(ticket)}`
}
