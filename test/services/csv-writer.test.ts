// The one CSV writer (services/files/csv-writer.ts) when the disk fails it while rows are still
// coming: the failure reaches the caller (a batch or a reconciliation makes it exit 74), it never
// ends the process as a rejection nobody awaited (reconcile --out in a folder removed mid-run
// exited 1 with Node's trace), and nothing is left behind.
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {writeCsv} from '../../src/services/files/csv-writer.js'

const dir = mkdtempSync(join(tmpdir(), 'unipay-csv-writer-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** Rows read slowly, as a journal is read back: each a turn of the event loop after the last. */
async function* slowRows(count: number) {
  for (let i = 0; i < count; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    yield {number: `N${i}`, amount: i}
  }
}

describe('writeCsv', () => {
  it('throws the file\'s failure to its caller when the folder goes while rows are read, leaving nothing', async () => {
    const folder = join(dir, 'gone')
    mkdirSync(folder)
    rmSync(folder, {recursive: true})
    await expect(writeCsv(join(folder, 'out.csv'), ['number', 'amount'], slowRows(50))).rejects.toMatchObject({code: 'ENOENT'})
    expect(readdirSync(dir)).toEqual([])
  })

  it('writes every row, 0600, when the disk holds', async () => {
    const out = join(dir, 'out.csv')
    await writeCsv(out, ['number', 'amount'], slowRows(3))
    expect(readFileSync(out, 'utf8')).toBe('number,amount\nN0,0\nN1,1\nN2,2\n')
    expect(statSync(out).mode & 0o777).toBe(0o600)
    rmSync(out)
  })
})
