// Whether the sandbox (or another process that left its pid in a file) still runs, and whether
// it answers: the runtime file it publishes is all the CLI knows of it, never an import.
import {existsSync, readFileSync, statSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {sandboxRuntimeFile, type SandboxRuntime} from '../protocol/local-sandbox.js'

/** The sandbox's own program, which its process runs. */
export const DAEMON = fileURLToPath(new URL('../sandbox/main.js', import.meta.url))

// A pid left in a file (this sandbox's runtime.json, a batch journal's lock) may outlive its
// process (kill -9, a restart), linger as a zombie where nothing reaps orphans (some containers),
// or be used again by another process.

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
export function responds(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = process.getBuiltinModule('node:http').get(`${url}/unipay/callback/ping`, {timeout: 2000}, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(false))
  })
}

/** Whether `pid` runs the sandbox's program (a pid left by a crash may now be another process's). */
export function isSandboxProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(DAEMON)
  } catch {
    return true // no /proc (not Linux): trust the runtime file
  }
}
