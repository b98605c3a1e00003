import {describe, expect, it} from 'vitest'
import {renderRecord, renderRows} from '../../src/output/table.js'

describe('tables', () => {
  it('never pass control characters (terminal escape sequences) through', () => {
    const hostile = 'paid\u001b[2J\u001b]0;pwned\u0007 ok\u009b'
    expect(renderRecord([['status', hostile]], false)).toBe('status\tpaid[2J]0;pwned ok')
    // eslint-disable-next-line no-control-regex -- the assertion is that these never get through
    expect(renderRows(['a'], [[hostile]], true)).not.toMatch(/[\u001b\u0007\u009b]/)
  })

  it('keeps tab-separated rows one line each when piped', () => {
    expect(renderRows(['x', 'y'], [['a\tb', 'c\nd']], false)).toBe('x\ty\na b\tc d')
  })
})
