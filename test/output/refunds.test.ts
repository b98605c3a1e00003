// `refunds list`'s closing line: how many of how many were shown, and the flags that show the rest.
import {describe, expect, it} from 'vitest'
import {pagingNotice} from '../../src/output/refunds.js'

describe('pagingNotice', () => {
  it('names the next page while pages are left, and nothing more on the last one', () => {
    expect(pagingNotice(1, 3, {page: 1, size: 1})).toBe('1 of 3 refunds: --page 2, or --all')
    expect(pagingNotice(1, 3, {page: 2, size: 1})).toBe('1 of 3 refunds: --page 3, or --all')
    expect(pagingNotice(1, 3, {page: 3, size: 1})).toBe('1 of 3 refunds')
    expect(pagingNotice(0, 0, {page: 1, size: 10})).toBe('0 of 0 refunds')
  })

  it('with --all, says when --limit stopped the walk', () => {
    expect(pagingNotice(3, 3, {all: true, page: 1, size: 1})).toBe('3 of 3 refunds')
    expect(pagingNotice(2, 3, {all: true, page: 1, size: 1, limit: 2})).toBe('2 of 3 refunds: stopped at --limit 2; raise it to see more')
  })

  it('says when --limit cut a page short', () => {
    expect(pagingNotice(4, 25, {page: 1, size: 10, limit: 4})).toBe('4 of 25 refunds: --limit 4 cut this page; drop it, or --page 2, or --all')
    // the last page cut short: its rest is only on this page, never on an empty next one
    expect(pagingNotice(2, 3, {page: 1, size: 10, limit: 2})).toBe('2 of 3 refunds: --limit 2 cut this page; drop it to see the rest')
    expect(pagingNotice(1, 23, {page: 3, size: 10, limit: 1})).toBe('1 of 23 refunds: --limit 1 cut this page; drop it to see the rest')
    // a limit as large as the page cuts nothing
    expect(pagingNotice(10, 25, {page: 1, size: 10, limit: 10})).toBe('10 of 25 refunds: --page 2, or --all')
  })
})
