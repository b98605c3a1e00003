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
    return this.collection(collection).get(key) as T | undefined
  }

  values<T>(collection: string): T[] {
    return [...this.collection(collection).values()] as T[]
  }

  put<T>(collection: string, key: string, value: T): T {
    this.append({c: collection, k: key, v: value})
    this.collection(collection).set(key, value)
    return value
  }

  delete(collection: string, key: string): void {
    this.append({c: collection, k: key, v: null})
    this.collection(collection).delete(key)
  }

  /**
   * Runs `fn` with its journal entries written together when it returns or throws: one write
   * per request instead of one per change, still before the request is answered.
   */
  grouped<T>(fn: () => T): T {
    if (this.pending) return fn()
    const pending: string[] = (this.pending = [])
    try {
      return fn()
    } finally {
      this.pending = undefined
      if (pending.length > 0) this.write(pending.join(''))
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
