// `lookup --report FILE`: checked before any call (a folder that exists and takes files; the
// file, if there, writable and not a folder), then written whole at the end, 0600 (it holds
// order data): a temporary file beside it renamed over it, so a reader never sees half a report.
import {accessSync, constants, renameSync, rmSync, statSync, writeFileSync, type Stats} from 'node:fs'
import {dirname, resolve} from 'node:path'
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
  try {
    if (!statSync(folder).isDirectory()) throw Object.assign(new Error(), {code: 'ENOTDIR'})
    accessSync(folder, constants.W_OK)
    if (stats) accessSync(path, constants.W_OK)
  } catch (error) {
    throw new UsageError(`--report: ${file} cannot be written (${stats ? file : folder}: ${readProblem(error)}); nothing was asked`)
  }
  return path
}

export function writeReport(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(temp, text, {mode: 0o600})
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, {force: true})
    throw new LocalWriteError(path, error, '--report holds nothing; the story is above')
  }
}
