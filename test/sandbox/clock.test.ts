// The sandbox clock's reading of how far it is ahead of the real clock, on a real clock that
// moves between any two readings (a millisecond boundary, which a busy machine crosses often):
// a clock never moved is 0 ahead, never -1 (`GET /_sandbox/clock` said -1 once in a CI run).
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {SandboxClock} from '../../src/sandbox/clock.js'
import {Store} from '../../src/sandbox/store.js'

const dir = mkdtempSync(join(tmpdir(), 'unipay-clock-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A real clock a millisecond further on at each reading. */
function ticking(start: number): () => Date {
  let at = start
  return () => new Date(at++)
}

describe('SandboxClock.aheadMs', () => {
  it('is exactly what it was moved by, however the real clock ticks between readings', () => {
    const store = new Store(join(dir, 'journal.jsonl')).open()
    try {
      const clock = new SandboxClock(store, ticking(Date.UTC(2026, 10, 27)))
      expect(clock.aheadMs()).toBe(0)
      clock.advance(60_000)
      expect(clock.aheadMs()).toBe(60_000)
      // paused, it stands still while the real clock goes on: behind by what the real clock moved
      clock.pause()
      const ahead = clock.aheadMs()
      expect(clock.aheadMs()).toBe(ahead - 1)
    } finally {
      store.close()
    }
  })
})
