// One rule for every duration a command takes (`--wait`, `sandbox clock advance`).
import {describe, expect, it} from 'vitest'
import {parseDuration} from '../../src/protocol/duration.js'

describe('parseDuration', () => {
  it.each([
    ['30', 30_000],
    ['30s', 30_000],
    ['250ms', 250],
    ['31m', 31 * 60_000],
    ['2h', 2 * 3_600_000],
    ['1d', 86_400_000],
    ['1h30m', 90 * 60_000],
    ['1d2h3m4s5ms', 86_400_000 + 2 * 3_600_000 + 3 * 60_000 + 4000 + 5],
    [' 10m ', 600_000],
    ['0', 0],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it.each(['', 'm', '10 minutes', '1h 30m', '1.5h', '-1s', '10x', '30s5', '1e3', '99999999999999999999d'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })
})
