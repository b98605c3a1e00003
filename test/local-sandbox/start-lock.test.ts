// The start lock names its holder: a command waiting for a start takes the lock over only once
// that process is gone, never because the start is slow (a busy machine): a second sandbox on
// the same journal is what the lock is there to prevent.
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {processStart} from '../../src/local-sandbox/liveness.js'
import {startLock, takeStartLock} from '../../src/local-sandbox/start-lock.js'
import {sandboxDir} from '../../src/protocol/local-sandbox.js'
import {removeDir} from '../helpers/sandbox.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir)
})

/** A data folder whose start lock holds `text`, last written an hour ago. */
function lockedFolder(text: string): {dataDir: string; lock: string} {
  const dataDir = mkdtempSync(join(tmpdir(), 'unipay-lock-'))
  dirs.push(dataDir)
  mkdirSync(sandboxDir(dataDir), {recursive: true})
  const lock = startLock(dataDir)
  writeFileSync(lock, text)
  const anHourAgo = new Date(Date.now() - 3600_000)
  utimesSync(lock, anHourAgo, anHourAgo)
  return {dataDir, lock}
}

describe('the start lock', () => {
  it('is not taken over from a holder that still runs, however old: the waiting command gives up at its deadline', async () => {
    const held = `${process.pid} ${processStart(process.pid) ?? ''}`
    const {dataDir, lock} = lockedFolder(held)
    await expect(takeStartLock(dataDir, Date.now() + 300, () => {})).rejects.toThrow(/the local sandbox did not start within/)
    expect(readFileSync(lock, 'utf8')).toBe(held)
  })

  it('is taken over from a holder that has ended, and then names this process', async () => {
    const ended = spawnSync(process.execPath, ['-e', '']).pid
    const {dataDir, lock} = lockedFolder(`${ended} `)
    await expect(takeStartLock(dataDir, Date.now() + 60_000, () => {})).resolves.toBeUndefined()
    expect(readFileSync(lock, 'utf8').split(' ')[0]).toBe(String(process.pid))
  })

  it('without a holder (cut short as it was written) is taken over once older than the start timeout', async () => {
    const {dataDir} = lockedFolder('')
    await expect(takeStartLock(dataDir, Date.now() + 60_000, () => {})).resolves.toBeUndefined()
  })
})
