// Whether a process that left its pid in a file still runs: the sandbox daemon (runtime.json),
// the holder of a batch journal's lock. The file may outlive the process (kill -9, a restart),
// the process may linger as a zombie where nothing reaps orphans (some containers), and its pid
// may be used again by another process.
import {readFileSync, statSync} from 'node:fs'

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
