// The ledger's numbers kept as 8-byte hashes: a number added twice is found, one never added is
// not, across the table's growth and its sizing, for numbers as merchants make them (sequential,
// sharing long prefixes) and for the ledger's keys of every kind.
import {describe, expect, it} from 'vitest'
import {NumberSet} from '../../src/services/reconcile/number-set.js'
import {refundKey, rowKey} from '../../src/services/reconcile/ledger.js'

describe('NumberSet', () => {
  it('tells 100,000 sequential numbers apart: each added once, found, and none of their neighbours found', () => {
    const numbers = new NumberSet()
    const number = (i: number) => `P20261124${String(i).padStart(8, '0')}`
    let added = 0
    for (let i = 0; i < 100_000; i++) if (numbers.add(number(i))) added++
    expect(added).toBe(100_000)
    expect(numbers.size).toBe(100_000)
    let again = 0
    let found = 0
    for (let i = 0; i < 100_000; i++) {
      if (numbers.add(number(i))) again++
      if (numbers.has(number(i))) found++
    }
    expect([again, found]).toEqual([0, 100_000])
    let strangers = 0
    for (let i = 100_000; i < 200_000; i++) if (numbers.has(number(i)) || numbers.has(`${number(i - 100_000)} `)) strangers++
    expect(strangers).toBe(0)
  })

  it('sized ahead, it holds what it was sized for in one table; grown, it keeps every number it held', () => {
    const sized = new NumberSet()
    sized.expect(100_000)
    const bytes = sized.bytes
    for (let i = 0; i < 100_000; i++) sized.add(`RF${i}`)
    expect(sized.bytes).toBe(bytes)
    expect(bytes).toBeLessThanOrEqual(100_000 * 8 * 1.3)
    const grown = new NumberSet()
    for (let i = 0; i < 100_000; i++) grown.add(`RF${i}`)
    let held = 0
    for (let i = 0; i < 100_000; i++) if (grown.has(`RF${i}`)) held++
    expect(held).toBe(100_000)
  })

  it('keys the kinds apart: a payment, a refund with and without its order, a transfer on two channels', () => {
    const numbers = new NumberSet()
    const keys = [
      rowKey({kind: 'pay', number: 'N1'}),
      rowKey({kind: 'refund', number: 'N1'}),
      rowKey({kind: 'refund', number: 'N1', bizOrderNo: 'P1'}),
      rowKey({kind: 'transfer', number: 'N1', channel: 'walletA'}),
      rowKey({kind: 'transfer', number: 'N1', channel: 'walletB'}),
    ]
    for (const key of keys) expect(numbers.add(key)).toBe(true)
    expect(numbers.has(refundKey('P1', 'N1'))).toBe(true)
    expect(numbers.has(refundKey('P2', 'N1'))).toBe(false)
  })
})
