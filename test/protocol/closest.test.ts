// "Did you mean": one rule for mistyped commands, flags and batch file columns.
import {describe, expect, it} from 'vitest'
import {closest} from '../../src/protocol/closest.js'

describe('closest', () => {
  it('finds a slip of the fingers: up to a third of the typed length, at least two edits', () => {
    expect(closest('pay creat', ['pay create', 'pay close', 'query pay'])).toBe('pay create')
    expect(closest('titel', ['title', 'amount'])).toBe('title')
    expect(closest('xyz', ['title', 'amount'])).toBeUndefined()
    // 12 letters typed: 4 edits are still a slip, 5 are not
    expect(closest('abcdefghijkl', ['abcdefghwxyz'])).toBe('abcdefghwxyz')
    expect(closest('abcdefghijkl', ['abcdefgvwxyz'])).toBeUndefined()
  })

  it('ignores case when asked (batch columns), and not otherwise (flags)', () => {
    expect(closest('PAYEEACOUNT', ['payeeAccount'], {ignoreCase: true})).toBe('payeeAccount')
    expect(closest('PAYEEACOUNT', ['payeeAccount'])).toBeUndefined()
  })
})
