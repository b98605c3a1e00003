// `lookup --report FILE`: checked before any call (a folder that exists and takes files, tried
// with a file made there and removed, as a batch's outputs are: root passes every permission
// check and a read-only file system refuses anyway), then written whole at the end, 0600 (it
// holds order data): a file beside it renamed over it, so a reader never sees half a report. A
// pipe or a device (`/dev/stdout`) is written in place, never replaced by a file.
import {closeSync, openSync, renameSync, rmSync, statSync, writeFileSync, type Stats} from 'node:fs'
import {randomBytes} from 'node:crypto'
import {basename, dirname, join, resolve} from 'node:path'
import {LocalWriteError, readProblem, UsageError} from '../../errors.js'

/** The report's path, once it is known that it can be written. */
export function reportTarget(file: string): string {
  const path = resolve(file)
  let stats: Stats | undefined
  try {
    stats = statSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`--report: ${file}: ${readProblem(error)}`)
  }
  if (stats?.isDirectory()) throw new UsageError(`--report: ${file} is a folder; give the report's file name`)
  const folder = dirname(path)
  const trial = join(folder, `.${basename(path)}.${randomBytes(4).toString('hex')}.probe`)
  const inPlace = stats !== undefined && !stats.isFile()
  try {
    if (inPlace) closeSync(openSync(path, 'a'))
    else {
      if (!statSync(folder).isDirectory()) throw Object.assign(new Error('not a folder'), {code: 'ENOTDIR'})
      closeSync(openSync(trial, 'wx', 0o600))
    }
  } catch (error) {
    throw new UsageError(`--report: ${file} cannot be written (${inPlace ? file : folder}: ${readProblem(error)}); nothing was asked`)
  } finally {
    if (!inPlace) rmSync(trial, {force: true})
  }
  return path
}

/** Writes the report; `what` says where the story is when it cannot be written (exit 74). */
export function writeReport(path: string, text: string, what: string): void {
  let existing: Stats | undefined
  try {
    existing = statSync(path)
  } catch {}
  if (existing && !existing.isFile()) {
    try {
      writeFileSync(path, text)
    } catch (error) {
      throw new LocalWriteError(path, error, what)
    }
    return
  }
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    writeFileSync(temp, text, {mode: 0o600, flag: 'wx'})
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, {force: true})
    throw new LocalWriteError(path, error, what)
  }
}
