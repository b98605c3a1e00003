// Whether a pid left in a file still names a running process: one rule for the sandbox daemon
// and a batch journal's lock.
import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {processAlive, processStart} from '../../src/local-sandbox/liveness.js'

describe('processAlive', () => {
  it('is true for a running process, and for it with the start time it was recorded with', () => {
    expect(processAlive(process.pid)).toBe(true)
    expect(processAlive(process.pid, processStart(process.pid))).toBe(true)
  })

  it('is false for a process that has ended, and for a pid now used by another process', () => {
    const ended = spawnSync(process.execPath, ['-e', '']).pid
    expect(processAlive(ended)).toBe(false)
    const start = processStart(process.pid)
    // without /proc there is no start time to tell a reused pid by
    if (start !== undefined) expect(processAlive(process.pid, `${start}0`)).toBe(false)
  })
})
