// Which sandbox a command reaches: its data folder (`--data-dir`, UNIPAY_SANDBOX_DIR, else the
// CLI's own), and the sandboxes started for other folders, of which the CLI's folder keeps notes.
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {sandboxDir, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {UsageError} from '../errors.js'
import {readRuntime, responds} from './liveness.js'

/**
 * Which sandbox a command uses: its data folder (`--data-dir`, else UNIPAY_SANDBOX_DIR, else the
 * CLI's own data folder, `home`). A sandbox started for another folder leaves word of itself in
 * `home`, so that a command aimed at `home` finds it instead of starting a second one unawares.
 */
export interface SandboxLocation {
  dataDir: string
  home: string
  /** What named a folder other than `home`: the flag or the environment variable. */
  chosenBy?: string
}

export const SANDBOX_DIR_ENV = 'UNIPAY_SANDBOX_DIR'

export function locateSandbox(home: string, dataDirFlag?: string, env: NodeJS.ProcessEnv = process.env): SandboxLocation {
  if (dataDirFlag) return {dataDir: resolve(dataDirFlag), home, chosenBy: '--data-dir'}
  const fromEnv = env[SANDBOX_DIR_ENV]
  return fromEnv ? {dataDir: resolve(fromEnv), home, chosenBy: SANDBOX_DIR_ENV} : {dataDir: home, home}
}

/**
 * Refuses a folder named by --data-dir or UNIPAY_SANDBOX_DIR that holds no sandbox state (the
 * keys a sandbox makes on its first start): a mistyped folder, which would otherwise get a new,
 * empty sandbox. Only `sandbox start` and the API commands on the local profile start one there.
 */
export function requireSandbox(location: SandboxLocation): void {
  if (location.dataDir === location.home || existsSync(join(sandboxDir(location.dataDir), 'keys'))) return
  throw new UsageError(
    `no sandbox in ${location.dataDir} (named by ${location.chosenBy}): \`unipay sandbox start --data-dir ${location.dataDir}\` starts one there`,
  )
}

const elsewhereDir = (home: string) => join(sandboxDir(home), 'elsewhere')

/** Notes in `home` that a sandbox runs for another data folder (removed once it no longer runs). */
export function noteElsewhere(location: SandboxLocation): void {
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
    throw new UsageError(`no sandbox runs for ${location.home}, and several run for other folders (${others.map(describeRuntime).join('; ')}): give --data-dir (or set ${SANDBOX_DIR_ENV}) to choose one`)
  }
  if (others.length === 1) notice(`using the sandbox running for ${describeRuntime(others[0])}: none runs for ${location.home} (--data-dir chooses)`)
  return others[0]
}

export const describeRuntime = (runtime: SandboxRuntime) => `${runtime.dataDir} (pid ${runtime.pid}, ${runtime.url})`
