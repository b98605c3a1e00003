// The files around a batch's money (issue 33): what the operator writes, what the tool writes
// back. Every file a run will write is checked before anything is sent; the files it writes are
// 0600 and safe to open in a spreadsheet; a write that fails mid-run loses nothing and never
// leads to paying again.
import {spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {envelope, fakePlatform, fakeProfile, signed, type FakePlatform} from '../helpers/fake-platform.js'
import {sandboxTransfers} from '../helpers/sandbox.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

let c: Cli
let fake: FakePlatform
beforeAll(async () => {
  c = cli()
  fake = await fakePlatform()
  await fakeProfile(c, 'fake', fake.url)
  // the sandbox clock runs: walletB transfers settle 300 ms after they are accepted, which --wait follows
  expect((await c.run(['sandbox', 'start'])).code).toBe(0)
})
afterAll(async () => {
  await fake.close()
  await c.cleanup()
})

let count = 0
/** A file in the test's folder, written as the operator wrote it. */
function operatorFile(text: string, name = `f${++count}.csv`): string {
  const file = join(c.dir, name)
  writeFileSync(file, text)
  return file
}
/** walletB payouts to the sandbox: `n` rows, each to its own payee. */
const payouts = (n: number, prefix = `P${++count}x`) => operatorFile(`channel,payeeType,payeeAccount,amount\n${Array.from({length: n}, (_, i) => `walletB,user_id,2088${prefix}${i},${100 + i}`).join('\n')}\n`)
const mode = (file: string) => (statSync(file).mode & 0o777).toString(8)

describe('cells a spreadsheet would run', () => {
  // the platform's message for each payee: what a hostile or careless channel may answer
  const messages: Record<string, string> = {
    u1: '=HYPERLINK("http://evil.example/x","click me")',
    u2: '+SUM(1,2)',
    u3: "-2+3+cmd|' /C calc'!A0",
    u4: '\t=1+1',
    u5: '\r=1+1',
    u6: 'plain words, -1 kept inside',
  }
  const rows = [
    'channel,bizTransferNo,payeeType,payeeAccount,amount',
    'walletB,=15891+1,user_id,u1,100',
    'walletB,@SUM26243,user_id,u2,200',
    'walletB,B3,user_id,u3,300',
    'walletB,B4,user_id,u4,400',
    'walletB,B5,user_id,u5,500',
    'walletB,B6,user_id,u6,600',
  ].join('\r\n')

  it('are neutralised with a leading quote in --out, numbers the tool writes stay numbers, and the file is 0600', async () => {
    fake.respond = (request, path) =>
      path === '/unipay/transfer' ? signed(envelope(request, {code: 30001, msg: messages[request.payeeAccount as string]})) : signed(envelope(request, {code: 20041, msg: 'transfer order not found'}))
    const file = operatorFile(rows)
    const out = join(c.dir, 'formula-results.csv')
    // a results file left readable by an earlier tool: replaced, and no longer readable by others
    writeFileSync(out, 'old', {mode: 0o644})
    const run = await c.run(['transfer', 'batch', file, '--profile', 'fake', '--yes', '--out', out])
    expect(run.code, run.stderr).toBe(5)
    expect(readFileSync(out, 'utf8')).toBe(
      [
        'line,bizTransferNo,channel,amount,outcome,transferNo,code,message',
        `2,'=15891+1,walletB,100,fail,,30001,"'=HYPERLINK(""http://evil.example/x"",""click me"")"`,
        `3,'@SUM26243,walletB,200,fail,,30001,"'+SUM(1,2)"`,
        "4,B3,walletB,300,fail,,30001,'-2+3+cmd|' /C calc'!A0",
        "5,B4,walletB,400,fail,,30001,'\t=1+1",
        `6,B5,walletB,500,fail,,30001,"'\r=1+1"`,
        '7,B6,walletB,600,fail,,30001,"plain words, -1 kept inside"',
        '',
      ].join('\n'),
    )
    expect(mode(out)).toBe('600')
  })

  it('are neutralised in the dry run\'s plan, which is 0600 too (it holds the payees\' accounts)', async () => {
    const file = operatorFile('channel,bizTransferNo,payeeType,payeeAccount,amount\nwalletB,-1+1,user_id,=cmd|calc,100\nwalletB,K2,user_id,@u2,250\n')
    const plan = join(c.dir, 'formula-plan.csv')
    const run = await c.run(['transfer', 'batch', file, '--dry-run', '--out', plan, '--channel-mch-no', 'CM'])
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(plan, 'utf8')).toBe("line,bizTransferNo,channel,amount,payee\n2,'-1+1,walletB,100,'=cmd|calc\n3,K2,walletB,250,'@u2\n")
    expect(mode(plan)).toBe('600')
  })
})

describe('every file a run will write, checked before anything is sent', () => {
  const refused = async (args: string[], message: string) => {
    const before = fake.hits
    const run = await c.run([...args, '--profile', 'fake', ...(args[2] === 'status' ? [] : ['--yes'])])
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain(message)
    expect(fake.hits).toBe(before)
    return run
  }
  const file = () => operatorFile('channel,payeeType,payeeAccount,amount\nwalletB,user_id,u1,100\nwalletB,user_id,u2,200\n', `s${++count}.csv`)

  it('refuses --out in a folder that does not exist (it used to pay everyone, then exit 70)', async () => {
    const payees = file()
    await refused(['transfer', 'batch', payees, '--out', '/nonexistent/dir/x.csv'], '--out: the folder /nonexistent/dir does not exist: nothing was sent')
    expect(existsSync(`${payees}.journal`)).toBe(false)
  })

  it('refuses --out on the batch file itself, its journal, its lock, or a folder; the payee list is left as it was', async () => {
    const payees = file()
    const text = readFileSync(payees, 'utf8')
    await refused(['transfer', 'batch', payees, '--out', payees], `--out: ${payees} is the batch file (${payees}): writing there would destroy it; give another file`)
    // the same file by another name
    await refused(['transfer', 'batch', payees, '--out', join(c.dir, '.', 'x', '..', payees.slice(c.dir.length + 1))], 'is the batch file')
    await refused(['transfer', 'batch', payees, '--out', `${payees}.journal`], `is its journal (${payees}.journal)`)
    await refused(['transfer', 'batch', payees, '--out', `${payees}.journal.lock`], "is its journal's lock")
    await refused(['transfer', 'batch', payees, '--out', c.dir], `--out: ${c.dir} is a folder: give a file name in it`)
    await refused(['transfer', 'batch', payees, '--dry-run', '--out', payees], 'is the batch file')
    expect(readFileSync(payees, 'utf8')).toBe(text)
  })

  it('refuses a folder it cannot write in (tried, not guessed from permissions: root passes those), for --out and for the journal beside the file', async () => {
    const payees = file()
    await refused(['transfer', 'batch', payees, '--out', '/proc/self/results.csv'], '--out: cannot write in /proc/self: ')
    await refused(['transfer', 'batch', payees, '--out', '/sys/results.csv'], '--out: cannot write in /sys: permission denied; nothing was sent')
    // a batch file where no journal can go
    await refused(['transfer', 'batch', '/proc/self/status', '--channel', 'walletB'], 'the journal /proc/self/status.journal: cannot write in /proc/self')
  })

  it('status refuses --out on the batch file, before it asks the platform anything', async () => {
    fake.respond = (request, path) => signed(envelope(request, path === '/unipay/transfer' ? {data: {transferNo: `TR${request.bizTransferNo}`, bizTransferNo: request.bizTransferNo, status: 'success', amount: request.amount}} : {code: 20041, msg: 'not found'}))
    const payees = file()
    expect((await c.run(['transfer', 'batch', payees, '--profile', 'fake', '--yes'])).code).toBe(0)
    await refused(['transfer', 'batch', 'status', payees, '--out', payees], 'is the batch file')
    // a finished run's journal kept aside (FILE.<start>.<sha>.journal) when the file is paid again on purpose
    expect((await c.run(['transfer', 'batch', payees, '--profile', 'fake', '--yes', '--again'])).code).toBe(0)
    const kept = readdirSync(dirname(payees)).filter((name) => name.startsWith(`${basename(payees)}.`) && /\.[0-9a-f]{12}\.journal$/.test(name))
    expect(kept).toHaveLength(1)
    await refused(['transfer', 'batch', 'status', join(dirname(payees), kept[0]), '--out', payees], 'is the batch file')
  })
})

describe('a write that fails once the run has begun', () => {
  it('a results file the disk refuses (/dev/full): every row paid once, exit 74, and the command that writes the results sends nothing; the file run again offers that command, never --again', async () => {
    const file = payouts(5)
    const before = (await sandboxTransfers(c)).length
    const run = await c.run(['transfer', 'batch', file, '--wait', '10m', '--out', '/dev/full'])
    expect(run.code, run.stderr).toBe(74)
    expect(run.stderr).toContain(`/dev/full could not be written (no space left on the device); nothing is lost: every outcome is in ${file}.journal. Once there is room, write the results from it, sending nothing, with: unipay transfer batch status ${file} --out /dev/full`)
    expect(run.stderr).not.toContain('--again')
    expect((await sandboxTransfers(c)).length).toBe(before + 5)

    const again = await c.run(['transfer', 'batch', file, '--out', join(c.dir, 'results-again.csv')])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`its results were not written to /dev/full: write them from its journal, sending nothing, with: unipay transfer batch status ${file}.journal --out /dev/full`)
    expect(again.stderr).not.toContain('--again')

    const out = join(c.dir, 'results-written.csv')
    const status = await c.run(['transfer', 'batch', 'status', file, '--out', out])
    expect(status.code, status.stderr).toBe(0)
    expect(readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[4])).toEqual(Array(5).fill('success'))
    expect((await sandboxTransfers(c)).length).toBe(before + 5)
    // written now: a run of the file again is the ordinary refusal
    expect((await c.run(['transfer', 'batch', file])).stderr).toContain('--again')
  })

  it('a journal the disk refuses mid-run (a file size limit): sending stops, exit 74, the hint settles and resumes; every row is then paid exactly once', async () => {
    const file = payouts(120)
    // a process limited to 8 KiB a file: the journal reaches it after a few dozen rows
    const run = await new Promise<{code: number | null; stderr: string}>((resolve) => {
      const child = spawn('/bin/sh', ['-c', 'ulimit -f 8; exec "$0" "$@"', process.execPath, BIN, 'transfer', 'batch', file, '--concurrency', '4'], {env: c.env})
      let stderr = ''
      child.stderr.on('data', (d) => (stderr += d))
      child.on('close', (code) => resolve({code, stderr}))
    })
    expect(run.code, run.stderr).toBe(74)
    expect(run.stderr).toContain(`Error: ${file}.journal could not be written (the file is over the size this process may write): sending stopped, as every send must be recorded before it goes`)
    expect(run.stderr).toContain(`once there is room: unipay transfer batch status ${file} looks up the rows that were sent, sending nothing; then unipay transfer batch ${file} --concurrency 4 --resume sends the rows not sent yet (no row twice)`)
    const journal = readFileSync(`${file}.journal`, 'utf8')
    const sent = journal.split('\n').filter((l) => l.includes('"type":"sending"')).length
    expect(sent).toBeGreaterThan(0)
    expect(sent).toBeLessThan(120)

    // the hint as given: status settles what was sent and names the rows never sent
    const status = await c.run(['transfer', 'batch', 'status', file])
    expect(status.code).toBe(5)
    expect(status.stderr).toMatch(/\d+ rows were never sent; finish with: unipay transfer batch .* --concurrency 4 --resume/)
    const resumed = await c.run(['transfer', 'batch', file, '--concurrency', '4', '--resume', '--wait', '10m'])
    expect(resumed.code, resumed.stderr).toBe(0)
    // the line the limit cut off is skipped, as every reader of the journal skips it
    const entries = readFileSync(`${file}.journal`, 'utf8').split('\n').flatMap((l) => {
      try {
        return [JSON.parse(l) as {bizTransferNo?: string}]
      } catch {
        return []
      }
    })
    const numbers = new Set(entries.map((e) => e.bizTransferNo))
    const mine = (await sandboxTransfers(c)).filter((t) => numbers.has(t.bizTransferNo))
    expect(mine).toHaveLength(120)
    expect(mine.every((t) => t.submissions === 1)).toBe(true)
  })
})

describe('a request that never left the machine', () => {
  const rows = (n: number) => operatorFile(`channel,payeeType,payeeAccount,amount\n${Array.from({length: n}, (_, i) => `walletB,user_id,u${i},${100 + i}`).join('\n')}\n`)

  for (const [name, url, why] of [
    ['refused', 'http://127.0.0.1:9', 'connect ECONNREFUSED 127.0.0.1:9'],
    ['unresolved', 'http://unipay-test.invalid', 'getaddrinfo'],
  ] as const) {
    it(`is "not sent", never "unknown" (${name}): the summary says nothing was sent, and --out and the JSON lines hold every row of the file with its outcome`, async () => {
      await fakeProfile(c, name, url)
      const file = rows(100)
      const out = join(c.dir, `${name}-results.csv`)
      const run = await c.run(['transfer', 'batch', file, '--profile', name, '--yes', '--out', out])
      expect(run.code, run.stderr).toBe(4)
      expect(run.stderr).toContain('sent 0 of 100 rows, 0.00 of 149.50 yuan: 0 success, 0 processing, 0 failed, 0 unknown')
      expect(run.stderr).toContain('platform unreachable: nothing more was sent (100 rows not sent)')
      const written = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => l.split(','))
      expect(written.map((r) => Number(r[0]))).toEqual(Array.from({length: 100}, (_, i) => i + 2))
      expect(written.map((r) => r[4])).toEqual(Array(100).fill('not sent'))
      expect(written[0][7]).toContain(`not sent: could not reach ${url}: ${why}`)
      const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as {line: number; outcome: string})
      expect(lines.map((l) => l.line).sort((a, b) => a - b)).toEqual(Array.from({length: 100}, (_, i) => i + 2))
      expect(new Set(lines.map((l) => l.outcome))).toEqual(new Set(['not sent']))
      // nothing to look up: status asks the platform nothing and names every row as never sent
      const status = await c.run(['transfer', 'batch', 'status', file, '--profile', name])
      expect(status.code, status.stderr).toBe(5)
      expect(status.stderr).toContain('100 rows: 0 success, 0 processing, 0 failed, 0 unknown')
      expect(status.stderr).toContain('100 rows were never sent; finish with: unipay transfer batch')
    })
  }
})

describe('the JSON lines of a run piped with --wait', () => {
  type Line = {line: number; outcome: string; transferNo?: string}
  const linesOf = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line)
  const outcomesIn = (out: string) => readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[4])

  it('give each row once, when its outcome is final: the log ends with the truth the summary tells', async () => {
    const file = operatorFile(`channel,payeeType,payeeAccount,amount\n${Array.from({length: 20}, (_, i) => `walletB,user_id,2088WAIT${count}x${i},${100 + i}`).join('\n')}\nwalletB,user_id,2088WAIT${count}_fails_later,150\n`)
    const out = join(c.dir, 'wait-results.csv')
    const run = await c.run(['transfer', 'batch', file, '--wait', '10m', '--out', out])
    expect(run.code, run.stderr).toBe(5)
    expect(run.stderr).toContain('21 rows, 23.40 yuan: 20 success, 0 processing, 1 failed, 0 unknown')
    const lines = linesOf(run.stdout)
    expect(lines.map((l) => l.line).sort((a, b) => a - b)).toEqual(Array.from({length: 21}, (_, i) => i + 2))
    expect(lines.filter((l) => l.outcome === 'success')).toHaveLength(20)
    expect(lines.find((l) => l.line === 22)).toMatchObject({outcome: 'fail', transferNo: expect.stringMatching(/^TR/)})
    expect([...lines].sort((a, b) => a.line - b.line).map((l) => l.outcome)).toEqual(outcomesIn(out))
  })

  it('give a row still processing when the wait ends with that state, once', async () => {
    const file = operatorFile(`channel,payeeType,payeeAccount,amount\nwalletA,openid,oWAIT${count}a,100\nwalletB,user_id,2088WAITB${count},200\nwalletA,openid,oWAIT${count}b,300\n`)
    const out = join(c.dir, 'wait-end-results.csv')
    // walletA waits for its payees, who never confirm here
    const run = await c.run(['transfer', 'batch', file, '--wait', '1s', '--out', out])
    expect(run.code, run.stderr).toBe(6)
    const lines = [...linesOf(run.stdout)].sort((a, b) => a.line - b.line)
    expect(lines.map((l) => l.line)).toEqual([2, 3, 4])
    expect([lines[0].outcome, lines[2].outcome]).toEqual(['processing', 'processing'])
    expect(lines.map((l) => l.outcome)).toEqual(outcomesIn(out))
  })
})
