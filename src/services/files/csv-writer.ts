// The one CSV writer of the tool: every file of rows it writes (a batch's results and plan, a
// reconciliation's differences) goes through here, and is checked here before anything is sent.
// Such files hold payees, orders and accounts: written 0600, whole (aside, then moved into
// place), and safe to open in a spreadsheet.
import {randomBytes} from 'node:crypto'
import {closeSync, createWriteStream, openSync, realpathSync, renameSync, rmSync, statSync, type Stats} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {readProblem, UsageError} from '../../errors.js'

/** What a spreadsheet runs as a formula: a cell that starts with =, +, -, @, a tab or a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * A text cell a spreadsheet would run as a formula, made inert with a leading `'` (as OWASP
 * recommends for CSV injection). Numbers the tool writes as numbers are never text cells.
 */
const neutralised = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text)

/**
 * Streams rows into a CSV file under a header of `columns`, with backpressure: text cells
 * neutralised, numbers left numbers. A regular file (or none yet) is written aside, 0600, and
 * moved into place once whole; anything else (a pipe, /dev/stdout) is written in place.
 */
export async function writeCsv(outFile: string, columns: string[], rows: AsyncIterable<object> | Iterable<object>): Promise<void> {
  const {stringify} = await import('csv-stringify')
  const out = stringify({header: true, columns, cast: {string: neutralised}})
  const inPlace = !isRegularOrMissing(outFile)
  const path = inPlace ? outFile : join(dirname(outFile), `.${basename(outFile)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    let failed: unknown
    const done = new Promise<void>((resolve, reject) => {
      const file = createWriteStream(path, inPlace ? {flags: 'w'} : {flags: 'wx', mode: 0o600})
      file.on('error', (error) => reject((failed = error)))
      out.pipe(file).on('finish', () => resolve())
    })
    // a file that fails while the rows are still read (its folder removed) ends the loop below:
    // the failure is thrown there, never left as a rejection nobody awaits (Node ends on those)
    done.catch(() => {})
    for await (const row of rows) {
      if (failed) throw failed
      if (!out.write(row)) await Promise.race([new Promise((resolve) => out.once('drain', resolve)), done])
    }
    out.end()
    await done
    if (!inPlace) renameSync(path, outFile)
  } catch (error) {
    out.destroy()
    if (!inPlace) rmSync(path, {force: true})
    throw error
  }
}

function isRegularOrMissing(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return true
  }
}

/** A file a run reads or keeps (its input, its journal), which no output may be. */
export interface KeptFile {
  path: string
  /** How the user knows it: "the batch file", "its journal". */
  what: string
}

/**
 * Checks, before anything is sent, that a run can write `path` (named `flag`): its folder exists
 * and can be written, it is no folder, and it is none of the `kept` files (which writing it would
 * destroy). Exit 2, naming the flag.
 */
export function checkWritable(flag: string, path: string, kept: KeptFile[]): void {
  const folder = dirname(path)
  let existing: Stats | undefined
  try {
    existing = statSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`${flag}: cannot write ${path}: ${readProblem(error)}`)
  }
  if (existing?.isDirectory()) throw new UsageError(`${flag}: ${path} is a folder: give a file name in it`)
  if (existing && !existing.isFile()) {
    // a pipe or a device is written in place: opened now as it will be then
    probe(flag, path, () => openSync(path, 'w'))
  } else {
    let folderStats: Stats
    try {
      folderStats = statSync(folder)
    } catch (error) {
      throw new UsageError(`${flag}: the folder ${folder} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read: ${readProblem(error)}`}: nothing was sent`)
    }
    if (!folderStats.isDirectory()) throw new UsageError(`${flag}: ${folder} is not a folder: nothing was sent`)
    // a file made there and removed: the kernel's answer, which permissions alone do not give
    // (root passes every permission check, and a read-only or virtual file system refuses anyway)
    const trial = join(folder, `.${basename(path)}.${randomBytes(4).toString('hex')}.probe`)
    probe(flag, folder, () => openSync(trial, 'wx', 0o600), () => rmSync(trial, {force: true}))
  }
  const target = identity(path)
  for (const file of kept) {
    const other = identity(file.path)
    if (other.real === target.real || (other.inode !== undefined && other.inode === target.inode)) {
      throw new UsageError(`${flag}: ${path} is ${file.what} (${file.path}): writing there would destroy it; give another file`)
    }
  }
}

/** Opens what a run will write, to see that it can; refused (exit 2, nothing sent) when it cannot. */
function probe(flag: string, where: string, open: () => number, cleanUp?: () => void): void {
  try {
    closeSync(open())
  } catch (error) {
    throw new UsageError(`${flag}: cannot write in ${where}: ${readProblem(error)}; nothing was sent`)
  } finally {
    cleanUp?.()
  }
}

/** A path as the file system sees it: its real path (links followed) and, when it exists, its device and inode. */
function identity(path: string): {real: string; inode?: string} {
  try {
    const stats = statSync(path)
    return {real: realpathSync(path), inode: `${stats.dev}:${stats.ino}`}
  } catch {
    try {
      return {real: join(realpathSync(dirname(path)), basename(path))}
    } catch {
      return {real: path}
    }
  }
}
