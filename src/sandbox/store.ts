// State on disk as an append-only journal: every accepted change is appended (synchronously)
// before the answer goes out, so killing the process at any moment loses nothing confirmed.
// On open the journal is replayed and, when mostly superseded, compacted. A line torn by a kill
// mid-write was never confirmed: it is skipped, reported, and cut off before the next append, so
// the next write starts on a line of its own instead of joining the broken one.
//
// A write that does not complete (a full disk: a short write, then ENOSPC) is cut back to the
// last complete line and fails the change: the request is not answered with success, and the
// store refuses every read and change after it (a group's changes, and the domains' own
// indexes, are in memory already), so the sandbox stops and a restart replays exactly what was
// acknowledged. The journal is not fsynced: a process kill loses nothing acknowledged, a power
// loss may (README, Security).
//
// Stored values are frozen: the object a domain gets back cannot be changed in place, so no
// change reaches memory without its put, and a single put whose write fails leaves memory as it was.
import {closeSync, existsSync, fstatSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync} from 'node:fs'

type Collection = Map<string, unknown>

/** writeSync's shape: bytes written, possibly fewer than asked. Tests inject short and failing writes. */
export type JournalWrite = (fd: number, buffer: Buffer, offset: number, length: number) => number

interface StoreOptions {
  write?: JournalWrite
  /** Told once, when a write fails and the store stops taking changes (the daemon then stops). */
  onFailure?: (message: string) => void
}

/** A change the journal could not take: the request fails, the store is done. */
export class JournalWriteError extends Error {}

/** Freezes a stored value all the way down (values are plain JSON data, so this stays small). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  // only objects go down a level: most fields are strings and numbers
  for (const key in value) {
    const item: unknown = value[key]
    if (item !== null && typeof item === 'object') deepFreeze(item)
  }
  return value
}

export class Store {
  private readonly collections = new Map<string, Collection>()
  private fd: number | undefined
  /** Journal lines of the group being run (see grouped). */
  private pending: string[] | undefined
  /** Why the journal stopped taking changes: nothing may be read or changed after that. */
  private broken: string | undefined
  /** The journal's length up to its last complete line: a failed write is cut back to it. */
  private size = 0

  constructor(
    private readonly file: string,
    private readonly log: (line: string) => void = () => {},
    private readonly options: StoreOptions = {},
  ) {}

  open(): this {
    let lines = 0
    if (existsSync(this.file)) {
      const data = readFileSync(this.file)
      // only complete lines count; bytes after the last newline are a torn write
      const end = data.lastIndexOf(0x0a) + 1
      data
        .subarray(0, end)
        .toString('utf8')
        .split('\n')
        .forEach((line, index) => {
          if (!line) return
          let entry: {c: string; k: string; v: unknown}
          try {
            entry = JSON.parse(line) as {c: string; k: string; v: unknown}
          } catch {
            this.log(`journal ${this.file}: skipped unreadable line ${index + 1} (${line.length} characters)`)
            return
          }
          lines++
          if (entry.v === null) this.collection(entry.c).delete(entry.k)
          else this.collection(entry.c).set(entry.k, deepFreeze(entry.v))
        })
      if (end < data.length) {
        this.log(`journal ${this.file}: cut off a torn last line (${data.length - end} bytes, never confirmed)`)
        truncateSync(this.file, end)
      }
    }
    const live = [...this.collections.values()].reduce((sum, c) => sum + c.size, 0)
    if (lines > 2 * live + 100) this.compact()
    this.fd = openSync(this.file, 'a', 0o600)
    this.size = fstatSync(this.fd).size
    return this
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  get<T>(collection: string, key: string): T | undefined {
    return this.usable(collection).get(key) as T | undefined
  }

  values<T>(collection: string): T[] {
    return [...this.usable(collection).values()] as T[]
  }

  entries<T>(collection: string): [key: string, value: T][] {
    return [...this.usable(collection).entries()] as [string, T][]
  }

  /** Stores a value, frozen: change a copy and put it again. */
  put<T>(collection: string, key: string, value: T): T {
    const entries = this.usable(collection)
    this.append({c: collection, k: key, v: value})
    entries.set(key, deepFreeze(value))
    return value
  }

  delete(collection: string, key: string): void {
    const entries = this.usable(collection)
    this.append({c: collection, k: key, v: null})
    entries.delete(key)
  }

  /**
   * Runs `fn` with its journal entries written together when it returns or throws: one write
   * per request instead of one per change, still before the request is answered. Its changes
   * are in memory by then: when that write fails, the store refuses every later read, so no
   * answer is ever made from a state the journal does not have (a restart replays the journal).
   */
  grouped<T>(fn: () => T): T {
    if (this.pending) return fn()
    const pending: string[] = (this.pending = [])
    let value: T
    try {
      value = fn()
    } catch (error) {
      this.pending = undefined
      this.flush(pending)
      throw error
    }
    this.pending = undefined
    this.flush(pending)
    return value
  }

  private flush(lines: string[]): void {
    if (lines.length > 0) this.write(lines.join(''))
  }

  private append(entry: unknown): void {
    const line = JSON.stringify(entry) + '\n'
    if (this.pending) this.pending.push(line)
    else this.write(line)
  }

  /** Appends whole lines, or none: a short write goes on; a failed one is cut back and ends the store. */
  private write(text: string): void {
    if (this.fd === undefined) return this.fail('store is not open')
    const write = this.options.write ?? writeSync
    const buffer = Buffer.from(text, 'utf8')
    let done = 0
    try {
      while (done < buffer.length) {
        const written = write(this.fd, buffer, done, buffer.length - done)
        if (!(written > 0)) throw new Error('the disk took no bytes')
        done += written
      }
    } catch (error) {
      let cut = ''
      try {
        if (done > 0) ftruncateSync(this.fd, this.size)
      } catch (truncateError) {
        // the torn line is then cut off when the journal is next opened
        cut = `; its torn end could not be cut off (${(truncateError as Error).message})`
      }
      this.fail(`${(error as NodeJS.ErrnoException).code ?? (error as Error).message}${cut}`)
    }
    this.size += buffer.length
  }

  private fail(reason: string): never {
    const first = this.broken === undefined
    this.broken = `the journal ${this.file} could not be written (${reason}): restart the sandbox`
    if (first) this.options.onFailure?.(this.broken)
    throw new JournalWriteError(this.broken)
  }

  /**
   * Runs work that no request waits for (settling, expiry, callbacks): when the journal fails
   * under it, that was reported once (onFailure); a timer must not crash the process for it.
   */
  background(fn: () => void): void {
    if (this.broken) return
    try {
      fn()
    } catch (error) {
      if (!(error instanceof JournalWriteError)) throw error
    }
  }

  private usable(name: string): Collection {
    if (this.broken) throw new JournalWriteError(this.broken)
    return this.collection(name)
  }

  private collection(name: string): Collection {
    let collection = this.collections.get(name)
    if (!collection) this.collections.set(name, (collection = new Map<string, unknown>()))
    return collection
  }

  private compact(): void {
    const lines: string[] = []
    for (const [c, entries] of this.collections) for (const [k, v] of entries) lines.push(JSON.stringify({c, k, v}))
    const temp = `${this.file}.compact`
    try {
      writeFileSync(temp, lines.join('\n') + (lines.length ? '\n' : ''), {mode: 0o600})
      renameSync(temp, this.file)
    } catch (error) {
      // the journal as it was is complete: compaction waits for the next start
      rmSync(temp, {force: true})
      this.log(`journal ${this.file}: not compacted (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    }
  }
}
