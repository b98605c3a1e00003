import {mkdtempSync, readFileSync, statSync, truncateSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {sandboxDir} from '../../src/protocol/local-sandbox.js'
import {Store} from '../../src/sandbox/store.js'
import {removeDir, testSandbox} from '../helpers/sandbox.js'

const dataDir = mkdtempSync(join(tmpdir(), 'unipay-journal-'))
afterAll(() => removeDir(dataDir))

const order = (bizOrderNo: string) => ({bizOrderNo, title: 'Coffee', amount: 100})

describe('journal', () => {
  it('cuts off a torn last line, reports it, and keeps the next write across a restart', async () => {
    const journal = join(sandboxDir(dataDir), 'journal.jsonl')
    const first = await testSandbox({log: () => {}}, dataDir)
    const before = await first.send(endpoints.pay, order('J-before'))
    expect(before.code).toBe(0)
    await first.close()
    // a kill mid-write: the last line loses its end (and its newline)
    truncateSync(journal, statSync(journal).size - 5)

    const logged: string[] = []
    const second = await testSandbox({log: (line) => logged.push(line)}, dataDir)
    expect(logged.join('\n')).toMatch(/torn last line/)
    const written = await second.send(endpoints.pay, order('J-after'))
    expect(written.code).toBe(0)
    await second.close()
    expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true)

    const third = await testSandbox({log: (line) => logged.push(line)}, dataDir)
    try {
      const found = await third.send(endpoints.queryPay, {bizOrderNo: 'J-after'})
      expect(found.code).toBe(0)
      expect(found.data.orderNo).toBe(written.data.orderNo)
      // the torn line was the journal's last write: whatever it held was never confirmed, but the
      // order numbers handed out since must not repeat one handed out after the tear
      const next = await third.send(endpoints.pay, order('J-next'))
      expect(next.data.orderNo).not.toBe(written.data.orderNo)
      expect(logged.filter((line) => /torn/.test(line))).toHaveLength(1)
    } finally {
      await third.close()
    }
  })

  it('reports each unreadable line it skips', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-journal-'))
    try {
      const first = await testSandbox({log: () => {}}, dir)
      await first.send(endpoints.pay, order('K-1'))
      await first.close()
      const journal = join(sandboxDir(dir), 'journal.jsonl')
      const lines = readFileSync(journal, 'utf8').split('\n')
      lines.splice(1, 0, '{"c":"broken', 'not json either')
      const {writeFileSync} = await import('node:fs')
      writeFileSync(journal, lines.join('\n'))
      const logged: string[] = []
      const second = await testSandbox({log: (line) => logged.push(line)}, dir)
      await second.close()
      expect(logged.filter((line) => /skipped unreadable line (2|3) /.test(line))).toHaveLength(2)
    } finally {
      removeDir(dir)
    }
  })
})

describe('grouped journal writes', () => {
  it('writes a group\'s changes together when it ends, also when it fails, and each one alone outside a group', () => {
    const file = join(dataDir, 'grouped.jsonl')
    const store = new Store(file).open()
    const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean).length
    store.put('a', '1', {n: 1})
    expect(lines()).toBe(1)
    store.grouped(() => {
      store.put('a', '2', {n: 2})
      store.put('a', '3', {n: 3})
      expect(lines()).toBe(1) // not yet: one write at the end
    })
    expect(lines()).toBe(3)
    expect(() =>
      store.grouped(() => {
        store.put('a', '4', {n: 4})
        throw new Error('refused after a change')
      }),
    ).toThrow('refused after a change')
    // what changed in memory is in the journal too, so a restart sees the same state
    expect(lines()).toBe(4)
    store.close()
    const reopened = new Store(file).open()
    expect(reopened.values('a')).toEqual([{n: 1}, {n: 2}, {n: 3}, {n: 4}])
    reopened.close()
  })
})

describe('a group that cannot be written', () => {
  it('refuses every later read and change, so nothing is answered from a state the journal lacks', () => {
    const file = join(dataDir, 'unwritable.jsonl')
    const store = new Store(file).open()
    store.put('a', '1', {n: 1})
    // the journal goes away mid-group (as when the disk fails): the group's change is in memory only
    expect(() =>
      store.grouped(() => {
        store.put('a', '2', {n: 2})
        store.close()
      }),
    ).toThrow(`the journal ${file} could not be written (store is not open): restart the sandbox`)
    expect(() => store.get('a', '2')).toThrow('restart the sandbox')
    expect(() => store.values('a')).toThrow('restart the sandbox')
    expect(() => store.put('a', '3', {n: 3})).toThrow('restart the sandbox')
    // what a restart sees: the journal, without the lost change
    const reopened = new Store(file).open()
    expect(reopened.values('a')).toEqual([{n: 1}])
    reopened.close()
  })
})

describe('compaction', () => {
  it('rewrites a mostly superseded journal to one line per live value on open, the state unchanged', () => {
    const file = join(dataDir, 'compact.jsonl')
    const store = new Store(file).open()
    // 300 changes to 3 keys and one deleted: far more lines than live values
    for (let i = 0; i < 100; i++) for (const key of ['a', 'b', 'c']) store.put('orders', key, {key, version: i})
    store.put('orders', 'gone', {key: 'gone'})
    store.delete('orders', 'gone')
    store.put('meta', 'clock', 5)
    store.close()
    const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean)
    expect(lines()).toHaveLength(303)

    const logged: string[] = []
    const reopened = new Store(file, (line) => logged.push(line)).open()
    expect(lines()).toHaveLength(4)
    expect(reopened.values('orders')).toEqual([{key: 'a', version: 99}, {key: 'b', version: 99}, {key: 'c', version: 99}])
    expect(reopened.get('orders', 'gone')).toBeUndefined()
    expect(reopened.get('meta', 'clock')).toBe(5)
    // appends go on after the compacted lines
    reopened.put('orders', 'd', {key: 'd'})
    reopened.close()
    expect(lines()).toHaveLength(5)
    expect(logged).toEqual([])
    const again = new Store(file).open()
    expect(again.get('orders', 'd')).toEqual({key: 'd'})
    again.close()
  })
})

describe('stored values', () => {
  it('are frozen: a value read back cannot be changed in memory without being put', () => {
    const store = new Store(join(dataDir, 'frozen.jsonl')).open()
    store.put('orders', 'o1', {status: 'progress', details: [{result: 'processing'}]})
    const read = store.get<{status: string; details: {result: string}[]}>('orders', 'o1')!
    expect(() => {
      read.status = 'success'
    }).toThrow(TypeError)
    expect(() => {
      read.details[0].result = 'success'
    }).toThrow(TypeError)
    expect(store.get('orders', 'o1')).toEqual({status: 'progress', details: [{result: 'processing'}]})
    store.close()
    // and so are the values a restart reads from the journal
    const reopened = new Store(join(dataDir, 'frozen.jsonl')).open()
    expect(Object.isFrozen(reopened.get('orders', 'o1'))).toBe(true)
    reopened.close()
  })

  it('a group whose write fails is refused whole: the store takes nothing after it and the journal keeps what was acknowledged', () => {
    const file = join(dataDir, 'undo.jsonl')
    let full = false
    const store = new Store(file, () => {}, {
      write: (fd, buffer, offset, length) => {
        if (full) throw Object.assign(new Error('ENOSPC'), {code: 'ENOSPC'})
        return writeSync(fd, buffer, offset, length)
      },
    }).open()
    store.put('orders', 'o1', {status: 'progress'})
    full = true
    expect(() =>
      store.grouped(() => {
        store.put('orders', 'o1', {status: 'success'})
        store.put('orders', 'o2', {status: 'progress'})
      }),
    ).toThrow(`the journal ${file} could not be written (ENOSPC): restart the sandbox`)
    expect(() => store.get('orders', 'o1')).toThrow('restart the sandbox')
    const reopened = new Store(file).open()
    expect(reopened.values('orders')).toEqual([{status: 'progress'}])
    reopened.close()
  })
})
