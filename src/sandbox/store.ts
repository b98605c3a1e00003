// State on disk as an append-only journal: every accepted change is appended (synchronously)
// before the answer goes out, so killing the process at any moment loses nothing confirmed.
// On open the journal is replayed and, when mostly superseded, compacted. A line torn by a kill
// mid-write was never confirmed: it is skipped, reported, and cut off before the next append, so
// the next write starts on a line of its own instead of joining the broken one.
import {closeSync, existsSync, openSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync} from 'node:fs'

type Collection = Map<string, unknown>

export class Store {
  private readonly collections = new Map<string, Collection>()
  private fd: number | undefined
  /** Journal lines of the group being run (see grouped). */
  private pending: string[] | undefined
  /** Why a group's changes are in memory but not in the journal: nothing may be read or changed after that. */
  private broken: string | undefined

  constructor(
    private readonly file: string,
    private readonly log: (line: string) => void = () => {},
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
            entry = JSON.parse(line)
          } catch {
            this.log(`journal ${this.file}: skipped unreadable line ${index + 1} (${line.length} characters)`)
            return
          }
          lines++
          if (entry.v === null) this.collection(entry.c).delete(entry.k)
          else this.collection(entry.c).set(entry.k, entry.v)
        })
      if (end < data.length) {
        this.log(`journal ${this.file}: cut off a torn last line (${data.length - end} bytes, never confirmed)`)
        truncateSync(this.file, end)
      }
    }
    const live = [...this.collections.values()].reduce((sum, c) => sum + c.size, 0)
    if (lines > 2 * live + 100) this.compact()
    this.fd = openSync(this.file, 'a', 0o600)
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

  put<T>(collection: string, key: string, value: T): T {
    const entries = this.usable(collection)
    this.append({c: collection, k: key, v: value})
    entries.set(key, value)
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
    if (lines.length === 0) return
    try {
      this.write(lines.join(''))
    } catch (error) {
      this.broken = `the journal ${this.file} could not be written (${(error as Error).message}): restart the sandbox`
      throw new Error(this.broken)
    }
  }

  private append(entry: unknown): void {
    const line = JSON.stringify(entry) + '\n'
    if (this.pending) this.pending.push(line)
    else this.write(line)
  }

  private write(text: string): void {
    if (this.fd === undefined) throw new Error('store is not open')
    writeSync(this.fd, text)
  }

  private usable(name: string): Collection {
    if (this.broken) throw new Error(this.broken)
    return this.collection(name)
  }

  private collection(name: string): Collection {
    let collection = this.collections.get(name)
    if (!collection) this.collections.set(name, (collection = new Map()))
    return collection
  }

  private compact(): void {
    const lines: string[] = []
    for (const [c, entries] of this.collections) for (const [k, v] of entries) lines.push(JSON.stringify({c, k, v}))
    const temp = `${this.file}.compact`
    writeFileSync(temp, lines.join('\n') + (lines.length ? '\n' : ''), {mode: 0o600})
    renameSync(temp, this.file)
  }
}
