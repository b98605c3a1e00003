// One process at a time writes a job's journal (a batch's, a reconciliation's): JOURNAL.lock
// names it (pid, command, since when), as the local sandbox's runtime file names the sandbox's
// process. A second run, --resume or status of the job is refused while that process runs; a
// lock whose process is gone (killed -9, the machine restarted) is taken over, and the run says so.
import {randomBytes} from 'node:crypto'
import {linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {UsageError} from '../../errors.js'
import {modifiedMs, processAlive, processStart} from '../../local-sandbox/liveness.js'

/** Who holds a journal's lock: a process, and when and as what it took it. */
interface LockHolder {
  pid: number
  /** The process's start time (from /proc), so a pid used again by another process is told apart. */
  started?: string
  command: string
  at: string
  token: string
}

interface JournalLock {
  release(): void
  /** Set when a lock left by a process that is gone was taken over: what to tell the user. */
  tookOver?: string
}

/**
 * Takes JOURNAL.lock for one process: a second run, --resume or status of the same job is
 * refused while the holder runs (exit 2, naming it, `details.reason` 'locked'); a lock whose
 * process is gone is taken over.
 */
export async function lockJournal(journal: string, command: string): Promise<JournalLock> {
  const path = `${journal}.lock`
  const mine: LockHolder = {pid: process.pid, started: processStart(process.pid), command, at: new Date().toISOString(), token: randomBytes(8).toString('hex')}
  const text = JSON.stringify(mine)
  const release = () => {
    process.off('exit', release)
    if (readLock(path)?.text === text) rmSync(path, {force: true})
  }
  for (let tries = 1; ; tries++) {
    if (tries > 100) throw new UsageError(`${path}: the lock could not be taken (nor one left by a process that is gone taken over); remove it if no unipay process uses ${journal}`)
    let tookOver: string | undefined
    if (!claim(path, text)) {
      const held = readLock(path)
      if (!held) continue // released in between: claim again
      if (held.holder && processAlive(held.holder.pid, held.holder.started)) {
        const error = new UsageError(`${journal} is in use by another unipay process: pid ${held.holder.pid} (${held.holder.command}, since ${held.holder.at}); nothing was done. Wait for it to end, or stop it (kill ${held.holder.pid})`)
        error.details = {reason: 'locked', journal, pid: held.holder.pid, command: held.holder.command, since: held.holder.at}
        throw error
      }
      if (!takeOver(path, held.text, text)) {
        // another process is taking it over: see who won
        await new Promise((resolve) => setTimeout(resolve, 10))
        continue
      }
      tookOver = held.holder
        ? `${path}: the process that held it (pid ${held.holder.pid}, ${held.holder.command}, since ${held.holder.at}) is no longer running; this one took it over`
        : `${path}: it named no process that could be found; this one took it over`
    }
    // a run ended by process.exit (a second Ctrl-C) leaves no lock behind either
    process.on('exit', release)
    return {release, tookOver}
  }
}

/** Creates the lock whole (written aside, then linked in, so it is never read half-written); false when one exists. */
function claim(path: string, text: string): boolean {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
  writeFileSync(temp, text, {mode: 0o600})
  try {
    linkSync(temp, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    // a file system without hard links: create it in place
    try {
      writeFileSync(path, text, {flag: 'wx', mode: 0o600})
      return true
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw again
    }
  } finally {
    rmSync(temp, {force: true})
  }
}

/**
 * Replaces a gone process's lock, if it still is the one read. One taker at a time: the guard
 * folder is made by one process only (one that died holding it is passed over after 5 s).
 */
function takeOver(path: string, seen: string, text: string): boolean {
  const guard = `${path}.takeover`
  try {
    mkdirSync(guard, {mode: 0o700})
  } catch {
    if (Date.now() - modifiedMs(guard) > 5000) rmSync(guard, {recursive: true, force: true})
    return false
  }
  try {
    if (readLock(path)?.text !== seen) return false
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
    writeFileSync(temp, text, {mode: 0o600})
    renameSync(temp, path)
    return true
  } finally {
    rmSync(guard, {recursive: true, force: true})
  }
}

function readLock(path: string): {text: string; holder?: LockHolder} | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  try {
    const holder = JSON.parse(text) as LockHolder
    return {text, holder: Number.isInteger(holder.pid) && holder.pid > 0 ? holder : undefined}
  } catch {
    return {text}
  }
}
