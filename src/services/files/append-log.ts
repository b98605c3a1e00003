// A job's journal on disk: JSON lines appended synchronously, so a kill never loses a line whose
// write returned. What the entries mean is the job's (batch/journal.ts for a batch).
import {closeSync, createReadStream, fstatSync, openSync, readSync, writeSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {LocalWriteError} from '../../errors.js'

export interface AppendLog<Entry> {
  write(entry: Entry): void
  /** Kept until the next write or the close: a line a kill may lose, for one system call less. */
  later(entry: Entry): void
  flush(): void
  close(): void
}

/**
 * Opens (or creates, 0600) a journal for appending; quiet once closed. A write that fails (a full
 * disk) throws a LocalWriteError saying `failed`, and every later write is refused the same way:
 * a journal with a gap in it must not go on as if whole.
 */
export function openAppendLog<Entry>(path: string, failed: string): AppendLog<Entry> {
  let fd: number
  let broken: LocalWriteError | undefined
  const append = (text: string) => {
    if (broken) throw broken
    try {
      // a write may take only part of the bytes (a disk filling up): the rest follows, or it fails
      const bytes = Buffer.from(text)
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done)
    } catch (error) {
      throw (broken = new LocalWriteError(path, error, failed))
    }
  }
  try {
    fd = openSync(path, 'a+', 0o600)
  } catch (error) {
    throw new LocalWriteError(path, error, failed)
  }
  // a line torn by a kill or a full disk is ended, so that the next line is not glued to it
  const {size} = fstatSync(fd)
  if (size > 0 && lastByte(fd, size) !== 0x0a) append('\n')
  let open = true
  let waiting = ''
  return {
    write(entry) {
      const text = `${waiting}${JSON.stringify(entry)}\n`
      waiting = ''
      if (open) append(text)
    },
    later(entry) {
      if (open) waiting += `${JSON.stringify(entry)}\n`
    },
    flush() {
      const text = waiting
      waiting = ''
      if (open && text) append(text)
    },
    close() {
      if (!open) return
      open = false
      try {
        if (waiting && !broken) append(waiting)
      } catch {
        // the write that broke it was thrown already, or the run has ended with another error
      } finally {
        waiting = ''
        closeSync(fd)
      }
    },
  }
}

function lastByte(fd: number, size: number): number {
  const byte = Buffer.alloc(1)
  return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : 0x0a
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
