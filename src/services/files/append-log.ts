// A job's journal on disk: JSON lines appended synchronously, so a kill never loses a line whose
// write returned. What the entries mean is the job's (batch/journal.ts for a batch).
import {closeSync, createReadStream, openSync, writeSync} from 'node:fs'
import {createInterface} from 'node:readline'

export interface AppendLog<Entry> {
  write(entry: Entry): void
  /** Kept until the next write or the close: a line a kill may lose, for one system call less. */
  later(entry: Entry): void
  flush(): void
  close(): void
}

/** Opens (or creates, 0600) a journal for appending; quiet once closed. */
export function openAppendLog<Entry>(path: string): AppendLog<Entry> {
  const fd = openSync(path, 'a', 0o600)
  let open = true
  let waiting = ''
  return {
    write(entry) {
      if (open) writeSync(fd, `${waiting}${JSON.stringify(entry)}\n`)
      waiting = ''
    },
    later(entry) {
      if (open) waiting += `${JSON.stringify(entry)}\n`
    },
    flush() {
      if (open && waiting) writeSync(fd, waiting)
      waiting = ''
    },
    close() {
      this.flush()
      if (open) closeSync(fd)
      open = false
    },
  }
}

/** A journal's entries, in the order written; a line torn by a kill mid-write is left out. */
export async function* readAppendLog<Entry>(path: string): AsyncGenerator<Entry> {
  for await (const line of createInterface({input: createReadStream(path), crlfDelay: Infinity})) {
    let entry: Entry
    try {
      entry = JSON.parse(line) as Entry
    } catch {
      continue
    }
    yield entry
  }
}
