// `transfer batch` as an operator leaves it to cron: the batch guide's recipe on two days, re-runs,
// rows left processing, an unreachable platform, interruptions, header problems and reports.
import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {DURATION_RULE} from '../../src/protocol/duration.js'
import {cli, type Cli} from '../helpers/cli.js'
import {onTerminal, terminal} from '../helpers/pty.js'
import {runtimeIn, sandboxTransfers, waitFor} from '../helpers/sandbox.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const GUIDE = fileURLToPath(new URL('../../docs/guides/batch.md', import.meta.url))

let c: Cli
let sandboxUrl = ''
beforeAll(async () => {
  c = cli()
  sandboxUrl = (await c.json(['sandbox', 'start', '--time-scale', '10'])).body.data.url
})
afterAll(async () => {
  await c.cleanup()
})

const journalLines = (file: string) => readFileSync(`${file}.journal`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {type: string; bizTransferNo?: string})
/** The complete lines of a journal another process is writing: none yet, or up to the last newline. */
function journalSoFar(file: string): {type: string; transferNo?: string}[] {
  const text = existsSync(`${file}.journal`) ? readFileSync(`${file}.journal`, 'utf8') : ''
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean).map((l) => JSON.parse(l))
}
const csvRows = (file: string) => readFileSync(file, 'utf8').trim().split('\n').slice(1).map((l) => l.split(','))

let fileCount = 0
/** A payout file of walletB rows; `accounts` are the payees (sandbox test values allowed). */
function payoutFile(accounts: string[], name = `f${++fileCount}.csv`, dir = c.dir): string {
  const file = join(dir, name)
  writeFileSync(file, `channel,payeeType,payeeAccount,amount\n${accounts.map((a, i) => `walletB,user_id,${a},${100 + i}`).join('\n')}\n`)
  return file
}
const accounts = (prefix: string, n: number) => Array.from({length: n}, (_, i) => `2088${prefix}${fileCount}x${i}`)

describe('the batch guide\'s cron recipe', () => {
  it('runs under cron\'s environment (env -i PATH=/usr/bin:/bin) on three days: a new file (exit 0, no mail), another (exit 5, mailed), the first file again (refused, mailed)', async () => {
    const readme = readFileSync(GUIDE, 'utf8')
    const recipe = /In cron[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]
    const dir = join(c.dir, 'payouts')
    mkdirSync(dir)
    const mailLog = join(c.dir, 'mail.log')
    const mail = join(c.dir, 'mail')
    writeFileSync(mail, `#!/bin/sh\n{ echo "mail $*"; cat; } >> "${mailLog}"\n`)
    chmodSync(mail, 0o755)
    // the two paths the guide says to write in, and a stand-in for the system's mail
    const script = recipe
      .replace(/^NODE=\S+/m, `NODE=${process.execPath}`)
      .replace(/^UNIPAY=\S+/m, `UNIPAY=${BIN}`)
      .replaceAll('| mail ', `| ${mail} `)
      .replaceAll(') mail ', `) ${mail} `)
    expect(script).not.toBe(recipe)
    writeFileSync(join(dir, 'run.sh'), script)
    chmodSync(join(dir, 'run.sh'), 0o755)
    // cron gives HOME and PATH=/usr/bin:/bin and nothing else: this CLI's folders are found from HOME
    const home = join(c.dir, 'cron-home')
    mkdirSync(join(home, '.local'), {recursive: true})
    symlinkSync(c.env.XDG_CONFIG_HOME!, join(home, '.config'))
    symlinkSync(c.env.XDG_DATA_HOME!, join(home, '.local', 'share'))
    const cron = () =>
      new Promise<number>((resolve) => {
        const child = spawn('/usr/bin/env', ['-i', 'PATH=/usr/bin:/bin', `HOME=${home}`, '/bin/sh', '-c', `${join(dir, 'run.sh')} >> ${join(dir, 'run.log')} 2>&1`], {stdio: 'ignore'})
        child.on('close', (code) => resolve(code ?? -1))
      })
    const mails = () => (existsSync(mailLog) ? readFileSync(mailLog, 'utf8') : '')

    const day1 = payoutFile(accounts('DAY1', 5), 'today.csv', dir)
    const day1Text = readFileSync(day1, 'utf8')
    const before = (await sandboxTransfers(c)).length
    expect(await cron(), readFileSync(join(dir, 'run.log'), 'utf8')).toBe(0)
    expect(mails()).toBe('')
    expect(csvRows(join(dir, 'today-results.csv')).map((r) => r[4])).toEqual(Array(5).fill('success'))

    payoutFile([...accounts('DAY2', 3), '2088DAY2_fails_later'], 'today.csv', dir)
    expect(await cron()).toBe(5)
    expect(mails()).toContain('mail -s payouts: some rows failed ops@example.com')
    expect(mails()).toMatch(/,fail,TR\d+,,the channel failed the transfer/)
    expect(csvRows(join(dir, 'today-results.csv')).map((r) => r[4])).toEqual(['success', 'success', 'success', 'fail'])
    // day 1's journal was kept aside, not lost
    expect(readdirSync(dir).filter((f) => /^today\.csv\..+\.journal$/.test(f))).toHaveLength(1)
    const paid = (await sandboxTransfers(c)).length

    // day 3: day 1's file again, byte for byte: refused, nothing sent, and the mail says why and what to run
    writeFileSync(join(dir, 'today.csv'), day1Text)
    const mailed = mails().length
    expect(await cron()).toBe(2)
    const refusal = mails().slice(mailed)
    expect(refusal).toContain('mail -s payouts: stopped or refused (exit 2) ops@example.com')
    expect(refusal).toMatch(/today\.csv was run to the end already \(started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 5 rows: 5 success, 0 processing, 0 failed; journal .*today\.csv\.[^ ]+\.journal\): nothing was sent/)
    expect(refusal).toContain('to pay the same list again on purpose: unipay transfer batch today.csv --wait 2h --yes --out today-results.csv --again')
    expect((await sandboxTransfers(c)).length).toBe(paid)
    expect(paid - before).toBe(9)
  }, 120_000)
})

describe('running a file again', () => {
  const sent = (file: string) => journalLines(file).filter((l) => l.type === 'sending').map((l) => l.bizTransferNo!)

  it('refuses a finished file run again (exit 2, when it ran, how to pay again), sending nothing; --again pays every row again under new numbers', async () => {
    const file = payoutFile(accounts('AGAIN', 3))
    const out = join(c.dir, 'again-results.csv')
    expect((await c.run(['transfer', 'batch', file, '--wait', '30s', '--out', out])).code).toBe(0)
    const first = sent(file)
    const before = await sandboxTransfers(c)

    const refused = await c.run(['transfer', 'batch', file, '--out', out])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(new RegExp(`Error: ${file} was run to the end already \\(started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d, 3 rows: 3 success, 0 processing, 0 failed; journal ${file}\\.journal\\): nothing was sent`))
    expect(refused.stderr).toContain(`to pay the same list again on purpose: unipay transfer batch ${file} --out ${out} --again (every row gets a new bizTransferNo)`)
    expect(refused.stderr).toContain(`That run's results: unipay transfer batch status ${file}.journal`)
    const json = await c.json(['transfer', 'batch', file])
    expect(json.body).toMatchObject({ok: false, error: {exitCode: 2, details: {reason: 'already-run', journal: `${file}.journal`, counts: {success: 3}}}})
    expect(await sandboxTransfers(c)).toHaveLength(before.length)

    const again = await c.json(['transfer', 'batch', file, '--again', '--wait', '30s'])
    expect(again.code).toBe(0)
    expect(again.body.data).toMatchObject({runId: expect.stringMatching(/^[0-9a-f]{16}$/), counts: {success: 3}, archived: expect.stringMatching(/\.journal$/)})
    const second = sent(file)
    expect(second).toHaveLength(3)
    expect(second.filter((no) => first.includes(no))).toEqual([])
    const paid = (await sandboxTransfers(c)).filter((t) => second.includes(t.bizTransferNo))
    expect(paid.map((t) => t.submissions)).toEqual([1, 1, 1])
    // refused again after that, naming the --again run's journal
    expect((await c.run(['transfer', 'batch', file])).code).toBe(2)
  }, 60_000)

  it('--resume finishes an --again run under the numbers it began with', async () => {
    const file = payoutFile(accounts('AGAINKILL', 2))
    expect((await c.run(['transfer', 'batch', file])).code).toBe(6)
    expect((await c.run(['transfer', 'batch', file, '--again'])).code).toBe(6)
    const numbers = sent(file)
    // the second row's result lost, as after a kill
    const lines = readFileSync(`${file}.journal`, 'utf8').trimEnd().split('\n')
    writeFileSync(`${file}.journal`, lines.filter((_, i) => i !== lines.findLastIndex((l) => JSON.parse(l).type === 'result')).join('\n') + '\n')
    const resumed = await c.json(['transfer', 'batch', file, '--resume'])
    // the looked-up row may have settled meanwhile (walletB settles a moment after it is accepted)
    expect(resumed.body.data).toMatchObject({runId: expect.any(String), counts: {fail: 0, unknown: 0}})
    expect(resumed.body.data.counts.success + resumed.body.data.counts.processing).toBe(2)
    expect(sent(file)).toEqual(numbers)
    expect((await sandboxTransfers(c)).filter((t) => numbers.includes(t.bizTransferNo)).map((t) => t.submissions)).toEqual([1, 1])
  }, 60_000)

  it('a file whose journal was moved away: rows submitted before are not paid again, each fails (exit 5), and the note names --again', async () => {
    const file = payoutFile(accounts('MOVED', 2))
    expect((await c.run(['transfer', 'batch', file])).code).toBe(6)
    renameSync(`${file}.journal`, join(c.dir, 'elsewhere.journal'))
    const before = (await sandboxTransfers(c)).length
    const again = await c.run(['transfer', 'batch', file])
    expect(again.code).toBe(5)
    // walletB settles a moment after it is accepted: the earlier run's row may be either by now
    expect(again.stderr).toMatch(/line 2: BT[0-9a-f]{30} fail TR\d+ \(10507\): not paid by this run: bizTransferNo BT[0-9a-f]{30} was submitted before it, by a run this journal does not record \((processing|success) TR\d+\)/)
    expect(again.stderr).toContain(`2 rows had been submitted before this run, which paid them nothing; to pay the whole file again on purpose: unipay transfer batch ${file} --again`)
    expect((await sandboxTransfers(c)).length).toBe(before)
  }, 60_000)

  it('--again refuses rows that give their own bizTransferNo; new numbers in the column pay the list again', async () => {
    const file = join(c.dir, 'keyed.csv')
    const keyed = (suffix: string) => writeFileSync(file, `channel,payeeType,payeeAccount,amount,bizTransferNo\nwalletB,user_id,2088KEY1,100,K1${suffix}\nwalletB,user_id,2088KEY2,100,K2${suffix}\n`)
    keyed('a')
    expect((await c.run(['transfer', 'batch', file])).code).toBe(6)
    const refused = await c.run(['transfer', 'batch', file, '--again'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`--again gives every row a new bizTransferNo, but 2 rows of ${file} give their own: give those rows new numbers in the file instead; nothing was sent`)
    keyed('b')
    expect((await c.run(['transfer', 'batch', file])).code).toBe(6)
    expect((await sandboxTransfers(c)).filter((t) => /^K[12][ab]$/.test(t.bizTransferNo)).map((t) => t.bizTransferNo).sort()).toEqual(['K1a', 'K1b', 'K2a', 'K2b'])
  }, 60_000)

  it('refuses to resume on another platform address or merchant, naming both', async () => {
    const file = payoutFile(accounts('PLATFORM', 2))
    await c.run(['transfer', 'batch', file])
    const start = journalLines(file)[0] as unknown as {baseUrl: string; mchNo: string}
    const other = await c.run(['transfer', 'batch', file, '--resume', '--base-url', 'http://127.0.0.1:9/'])
    expect(other.code).toBe(2)
    expect(other.stderr).toContain(`was run against ${start.baseUrl}, but this profile points at http://127.0.0.1:9/`)
    const merchant = await c.run(['transfer', 'batch', file, '--resume'], {env: {UNIPAY_MCH_NO: 'M-OTHER'}})
    expect(merchant.code).toBe(2)
    expect(merchant.stderr).toContain(`was run as merchant ${start.mchNo}, but this profile is merchant M-OTHER`)
  }, 60_000)
})

describe('rows left processing', () => {
  const walletAFile = (name: string, n: number) => {
    const file = join(c.dir, name)
    writeFileSync(file, `channel,payeeType,payeeAccount,amount\n${Array.from({length: n}, (_, i) => `walletA,openid,o${name}${i},${100 + i}`).join('\n')}\n`)
    return file
  }
  const confirm = (transferNo: string) => fetch(`${sandboxUrl}/transfer/confirm/${transferNo}`, {method: 'POST'})

  it('exits 6 while walletA payees have not confirmed; status settles them and rewrites --out', async () => {
    const file = walletAFile('wa.csv', 2)
    const out = join(c.dir, 'wa-results.csv')
    const run = await c.run(['transfer', 'batch', file, '--out', out])
    expect(run.code).toBe(6)
    expect(run.stderr).toContain(`2 rows still processing: check later with: unipay transfer batch status ${file} --out ${out} (add --wait 1h to follow them until final)`)
    const [first, second] = csvRows(out).map((r) => r[5])
    const still = await c.json(['transfer', 'batch', 'status', file])
    expect(still.code).toBe(6)
    expect(still.body).toMatchObject({ok: false, exitCode: 6, data: {counts: {processing: 2}}})
    await confirm(first)
    await confirm(second)
    const settled = await c.run(['transfer', 'batch', 'status', file])
    expect(settled.code).toBe(0)
    expect(settled.stderr).toContain('2 rows: 2 success, 0 processing, 0 failed, 0 unknown')
    expect(csvRows(out).map((r) => r[4])).toEqual(['success', 'success'])
    // a resumed run now finds nothing to do and agrees
    expect((await c.run(['transfer', 'batch', file, '--resume'])).code).toBe(0)
  }, 60_000)

  it('--wait follows the rows until the payee confirms, saying once what it waits for', async () => {
    const file = walletAFile('wait.csv', 1)
    const child = spawn(process.execPath, [BIN, 'transfer', 'batch', file, '--wait', '--json'], {env: c.env})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
    const transferNo = await waitFor(() => journalSoFar(file).find((l) => l.type === 'result')?.transferNo)
    // the payee confirms once the run is following the row: it has said so
    await waitFor(() => stderr.includes('waiting up to 10m for 1 processing row'))
    await confirm(transferNo)
    expect(await exited).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ok: true, data: {counts: {success: 1, processing: 0}}})
    expect(stderr.split('\n').filter((line) => line.includes('processing row'))).toEqual(['waiting up to 10m for 1 processing row...'])
  }, 60_000)

  it('--wait reports a transfer that fails after it was accepted (exit 5)', async () => {
    const file = payoutFile(['2088LATE_fails_later', ...accounts('LATE', 1)])
    const result = await c.json(['transfer', 'batch', file, '--wait', '20s'])
    expect(result.code).toBe(5)
    expect(result.body.data.failed).toEqual([expect.objectContaining({line: 2, outcome: 'fail', transferNo: expect.stringMatching(/^TR/), message: expect.stringContaining('failed')})])
  }, 60_000)
})

describe('an unreachable platform', () => {
  it('stops after a few transport failures (exit 4); --resume then pays every row exactly once', async () => {
    const file = payoutFile(accounts('DOWN', 200))
    await c.run(['sandbox', 'faults', 'add', 'http-500', '--times', '100000'])
    const down = await c.run(['transfer', 'batch', file, '--concurrency', '4'])
    await c.run(['sandbox', 'faults', 'clear'])
    expect(down.code).toBe(4)
    expect(down.stderr).toMatch(new RegExp(`platform unreachable: nothing more was sent \\(\\d+ rows not sent\\); once it answers, finish with: unipay transfer batch ${file} --concurrency 4 --resume`))
    const tried = journalLines(file).filter((l) => l.type === 'sending').length
    expect(tried).toBeGreaterThan(0)
    expect(tried).toBeLessThanOrEqual(8)
    const resumed = await c.run(['transfer', 'batch', file, '--resume', '--concurrency', '8', '--wait', '30s'])
    expect(resumed.code).toBe(0)
    const mine = (await sandboxTransfers(c)).filter((t) => journalLines(file).some((l) => l.bizTransferNo === t.bizTransferNo))
    expect(mine).toHaveLength(200)
    expect(mine.every((t) => t.submissions === 1)).toBe(true)
  }, 120_000)
})

describe('an interrupted batch', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: stops sending, finishes the rows in flight, writes --out in file order (the rows not sent included), sums up what was sent, and prints the command that finishes it (exit ${signal === 'SIGINT' ? 130 : 143})`, async () => {
      // no channel column: the run's --channel is one of the flags the finishing command needs
      const file = join(c.dir, `${signal}.csv`)
      writeFileSync(file, `payeeType,payeeAccount,amount\n${Array.from({length: 400}, (_, i) => `user_id,2088${signal}${i},${100 + (i % 7)}`).join('\n')}\n`)
      const out = join(c.dir, `${signal}-results.csv`)
      await c.run(['sandbox', 'faults', 'add', 'latency', '--latency', '50', '--times', '100000'])
      const child = spawn(process.execPath, [BIN, 'transfer', 'batch', file, '--concurrency', '4', '--channel', 'walletB', '--out', out], {env: c.env})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
      await waitFor(() => stdout.split('\n').length > 10, 30_000)
      child.kill(signal)
      const code = await exited
      await c.run(['sandbox', 'faults', 'clear'])
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143)
      // one line per row of the file, in its order: the rows never sent say so
      const written = csvRows(out)
      expect(written.map((r) => Number(r[0]))).toEqual(Array.from({length: 400}, (_, i) => i + 2))
      const sent = written.filter((r) => r[4] !== 'not sent')
      expect(sent.length).toBeGreaterThan(0)
      expect(sent.length).toBeLessThan(400)
      const sentCents = sent.reduce((sum, r) => sum + Number(r[3]), 0)
      const totalCents = Array.from({length: 400}, (_, i) => 100 + (i % 7)).reduce((a, b) => a + b)
      expect(stderr).toContain(`sent ${sent.length} of 400 rows, ${(sentCents / 100).toFixed(2)} of ${(totalCents / 100).toFixed(2)} yuan: `)
      const finish = new RegExp(`interrupted by ${signal}: \\d+ rows not sent(, \\d+ in flight)?; finish with: unipay (.*)$`, 'm').exec(stderr)
      expect(finish?.[2]).toBe(`transfer batch ${file} --concurrency 4 --channel walletB --out ${out} --resume`)
      // status names the same command, the run's own flags read from its journal
      const status = await c.run(['transfer', 'batch', 'status', file])
      expect(status.code).toBe(5)
      expect(status.stderr).toMatch(new RegExp(`\\d+ rows were never sent; finish with: unipay ${finish![2].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'))
      // following it finishes the job, --out included
      expect([0, 6]).toContain((await c.run(finish![2].split(' '))).code)
      const all = csvRows(out)
      expect(all.map((r) => Number(r[0]))).toEqual(Array.from({length: 400}, (_, i) => i + 2))
      const mine = (await sandboxTransfers(c)).filter((t) => journalLines(file).some((l) => l.bizTransferNo === t.bizTransferNo))
      expect(mine).toHaveLength(400)
      expect(mine.every((t) => t.submissions === 1)).toBe(true)
    }, 120_000)
  }

  it('SIGINT while a long file is checked: ends the check at once, nothing sent, no journal (exit 130)', async () => {
    const file = join(c.dir, 'long.csv')
    writeFileSync(file, `channel,payeeType,payeeAccount,amount\n${Array.from({length: 600_000}, (_, i) => `walletB,user_id,2088L${i},100`).join('\n')}\n`)
    const child = spawn(process.execPath, [BIN, 'transfer', 'batch', file], {env: c.env})
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    // the check has begun once the file is open (the interrupt is handled from before that)
    const reading = () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).some((fd) => readlinkSync(`/proc/${child.pid}/fd/${fd}`) === file)
      } catch {
        return false
      }
    }
    await waitFor(reading, 30_000)
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    expect(stderr).toMatch(new RegExp(`SIGINT: interrupted while checking ${file} \\(\\d+ rows read\\); nothing was sent and no journal was written`))
    expect(Number(/\((\d+) rows read\)/.exec(stderr)![1])).toBeLessThan(600_000)
    expect(existsSync(`${file}.journal`)).toBe(false)
  }, 60_000)
})

describe('one run at a time', () => {
  it('a second run, --resume or status while a run is sending is refused (exit 2, naming its pid); the first sends every row once', async () => {
    const file = payoutFile(accounts('LOCK', 120))
    await c.run(['sandbox', 'faults', 'add', 'latency', '--latency', '50', '--times', '100000'])
    const first = spawn(process.execPath, [BIN, 'transfer', 'batch', file, '--concurrency', '2'], {env: c.env, stdio: 'ignore'})
    const exited = new Promise<number | null>((resolve) => first.on('close', (code) => resolve(code)))
    try {
      await waitFor(() => journalSoFar(file).filter((l) => l.type === 'result').length > 2, 30_000)
      const inUse = new RegExp(`Error: ${file}\\.journal is in use by another unipay process: pid ${first.pid} \\(transfer batch, since [\\d:T.-]+Z\\); nothing was done\\. Wait for it to end, or stop it \\(kill ${first.pid}\\)`)
      for (const args of [['transfer', 'batch', file, '--resume'], ['transfer', 'batch', file], ['transfer', 'batch', 'status', file]]) {
        const second = await c.run(args)
        expect(second.code, args.join(' ')).toBe(2)
        expect(second.stderr).toMatch(inUse)
      }
      expect(existsSync(`${file}.journal.lock`)).toBe(true)
    } finally {
      await exited
      await c.run(['sandbox', 'faults', 'clear'])
    }
    expect(existsSync(`${file}.journal.lock`)).toBe(false)
    const sent = journalLines(file).filter((l) => l.type === 'sending').map((l) => l.bizTransferNo)
    expect(sent).toHaveLength(120)
    const mine = (await sandboxTransfers(c)).filter((t) => sent.includes(t.bizTransferNo))
    expect(mine).toHaveLength(120)
    expect(mine.every((t) => t.submissions === 1)).toBe(true)
  }, 120_000)

  it('takes over a lock left by a process that is gone, and says so', async () => {
    const file = payoutFile(accounts('STALE', 2))
    const gone = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => gone.on('exit', resolve))
    writeFileSync(`${file}.journal.lock`, JSON.stringify({pid: gone.pid, command: 'transfer batch', at: '2026-11-24T02:30:00.000Z', token: 'x'}))
    const run = await c.run(['transfer', 'batch', file])
    expect(run.code).toBe(6)
    expect(run.stderr).toContain(`${file}.journal.lock: the process that held it (pid ${gone.pid}, transfer batch, since 2026-11-24T02:30:00.000Z) is no longer running; this one took it over`)
    expect(existsSync(`${file}.journal.lock`)).toBe(false)
  }, 60_000)
})

describe('the result file and the words', () => {
  it('--out lists the rows in file order, whatever order they finished in', async () => {
    const file = payoutFile(accounts('ORDER', 6))
    const out = join(c.dir, 'order-results.csv')
    // the first create's answer is lost: that row is looked up later and finishes last
    await c.run(['sandbox', 'faults', 'add', 'reset', '--path', '/unipay/transfer', '--times', '1'])
    const run = await c.run(['transfer', 'batch', file, '--concurrency', '4', '--out', out])
    expect(run.code).toBe(6)
    const finished = run.stdout.trim().split('\n').map((l) => JSON.parse(l).line as number)
    expect(finished).not.toEqual([2, 3, 4, 5, 6, 7])
    expect(csvRows(out).map((r) => Number(r[0]))).toEqual([2, 3, 4, 5, 6, 7])
  }, 60_000)

  it('says "1 row", and a file with no rows is named, not "line 0"', async () => {
    const one = payoutFile(accounts('ONE', 1))
    expect((await c.run(['transfer', 'batch', one])).stderr).toContain('1 row, 1.00 yuan: 0 success, 1 processing')
    const empty = join(c.dir, 'empty.csv')
    writeFileSync(empty, 'channel,payeeType,payeeAccount,amount\n')
    const refused = await c.run(['transfer', 'batch', empty])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${empty}: no rows: the file is empty or has only its header`)
    expect(refused.stderr).not.toContain('line 0')
  }, 60_000)

  it('on a terminal, messages go above the progress bar instead of under it', async () => {
    const file = payoutFile(accounts('BAR', 300))
    await c.run(['sandbox', 'faults', 'add', 'latency', '--latency', '30', '--times', '100000'])
    try {
      const screen = terminal(['transfer', 'batch', file, '--concurrency', '2'], {env: c.env, columns: 120})
      await screen.waitFor(/transfers \[.*\] [1-9]\d*\/300/, 30_000)
      process.kill(Number(execFileSync('pgrep', ['-P', String(screen.pid)], {encoding: 'utf8'}).trim()), 'SIGINT')
      expect(await screen.exited).toBe(130)
      const lines = screenLines(screen.output())
      expect(lines).toContain('SIGINT: no more rows are sent; finishing the rows in flight...')
      expect(lines.some((line) => /^interrupted by SIGINT: \d+ rows not sent/.test(line))).toBe(true)
    } finally {
      await c.run(['sandbox', 'faults', 'clear'])
    }
  }, 60_000)
})

/**
 * The lines a terminal shows after the output: text overwrites what is under the cursor, and
 * the escape sequences a progress bar uses move the cursor and clear.
 */
function screenLines(output: string): string[] {
  const lines: string[] = ['']
  let row = 0
  let col = 0
  const put = (text: string) => {
    const line = (lines[row] ?? '').padEnd(col)
    lines[row] = line.slice(0, col) + text + line.slice(col + text.length)
    col += text.length
  }
  // eslint-disable-next-line no-control-regex -- terminal control sequences are what this reads
  for (const [, csi, args, command, text] of output.matchAll(/(\x1b\[([?\d;]*)([A-Za-z]))|([^\x1b\r\n]+|\r|\n|\x1b)/g)) {
    if (csi) {
      const n = Number(args) || 1
      if (command === 'G') col = n - 1
      else if (command === 'A') row = Math.max(0, row - n)
      else if (command === 'B') row += n
      else if (command === 'C') col += n
      else if (command === 'D') col = Math.max(0, col - n)
      else if (command === 'K') lines[row] = args === '2' ? '' : args === '1' ? ' '.repeat(col) + (lines[row] ?? '').slice(col) : (lines[row] ?? '').slice(0, col)
      else if (command === 'J') {
        lines.splice(row + 1)
        lines[row] = (lines[row] ?? '').slice(0, col)
      }
    } else if (text === '\r') col = 0
    else if (text === '\n') {
      row++
      col = 0
      lines[row] ??= ''
    } else if (text !== '\x1b') put(text)
  }
  return lines.map((line) => line.trimEnd())
}

describe('header problems', () => {
  it('reports a misspelled column once, on line 1, with the closest valid name', async () => {
    const file = join(c.dir, 'typo.csv')
    writeFileSync(file, `channel,payeeType,payeAccount,amount\n${Array.from({length: 500}, (_, i) => `walletB,user_id,2088T${i},100`).join('\n')}\n`)
    const result = await c.run(['transfer', 'batch', file])
    expect(result.code).toBe(2)
    const problems = result.stderr.split('\n').filter((l) => l.startsWith('line '))
    expect(problems).toEqual(['line 1: payeAccount: unknown column: did you mean payeeAccount?', 'line 1: payeeAccount: no payeeAccount column: every row needs one'])
  })

  it('reports a missing column once, naming the flag that can stand in for it', async () => {
    const file = join(c.dir, 'nochannel.csv')
    writeFileSync(file, `payeeType,payeeAccount,amount\n${Array.from({length: 50}, (_, i) => `user_id,2088N${i},100`).join('\n')}\n`)
    const result = await c.run(['transfer', 'batch', file])
    expect(result.code).toBe(2)
    expect(result.stderr.split('\n').filter((l) => l.startsWith('line '))).toEqual(['line 1: channel: no channel column (or --channel): every row needs one'])
  })

  it('reads semicolon- and tab-separated files, and says clearly when a file is not comma-separated', async () => {
    for (const [name, sep] of [['semi.csv', ';'], ['tabs.csv', '\t']]) {
      const file = join(c.dir, name)
      writeFileSync(file, ['channel', 'payeeType', 'payeeAccount', 'amount'].join(sep) + '\n' + ['walletB', 'user_id', '2088S', '150'].join(sep) + '\n')
      const plan = await c.json(['transfer', 'batch', file, '--dry-run'])
      expect(plan.code).toBe(0)
      expect(plan.body.data).toMatchObject({rows: 1, totalCents: 150, plan: [{line: 2, channel: 'walletB', amount: 150, payee: '2088S'}]})
    }
    const piped = join(c.dir, 'pipes.csv')
    writeFileSync(piped, 'channel|payeeType|payeeAccount|amount\nwalletB|user_id|2088P|150\n')
    const result = await c.run(['transfer', 'batch', piped])
    expect(result.code).toBe(2)
    expect(result.stderr.split('\n').filter((l) => l.startsWith('line '))).toEqual([expect.stringContaining('line 1: the header has a single column "channel|payeeType|payeeAccount|amount": the file is not comma-separated')])
  })

  it('refuses a bad file before it reaches any platform: no local sandbox started, no production confirmation asked', async () => {
    const fresh = cli()
    try {
      const bad = join(fresh.dir, 'bad.csv')
      writeFileSync(bad, 'channel,payeeType,payeAccount,amount\nwalletB,user_id,2088B,150\n')
      const local = await fresh.run(['transfer', 'batch', bad])
      expect(local.code).toBe(2)
      expect(local.stderr).toContain('line 1: payeAccount: unknown column: did you mean payeeAccount?')
      expect(local.stderr).not.toMatch(/starting the local sandbox/)
      expect(existsSync(join(fresh.dir, 'data', 'unipay', 'sandbox', 'runtime.json'))).toBe(false)

      const live = ['--profile', 'live', '--channel-mch-no', 'CM1']
      expect((await fresh.run(['profile', 'add', 'live', '--environment', 'production', '--base-url', 'https://pay.example.com', '--mch-no', 'M1', '--app-id', 'A1'])).code).toBe(0)
      const refused = await fresh.run(['transfer', 'batch', bad, ...live])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('line 1: payeAccount: unknown column')
      expect(refused.stderr).not.toMatch(/PRODUCTION|--yes/)
      // a valid file is confirmed with what it pays, and without --yes nothing is sent
      const good = join(fresh.dir, 'good.csv')
      writeFileSync(good, 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088G,150\nwalletB,user_id,2088H,250\n')
      const unconfirmed = await fresh.run(['transfer', 'batch', good, ...live])
      expect(unconfirmed.code).toBe(2)
      expect(unconfirmed.stderr).toContain(`a batch of 2 transfers (4.00 yuan) from ${good} moves real money on production profile live: pass --yes to confirm`)
      expect(existsSync(`${good}.journal`)).toBe(false)
      expect(existsSync(`${bad}.journal`)).toBe(false)
    } finally {
      await fresh.cleanup()
    }
  })

})

describe('a production profile', () => {
  const live = ['--profile', 'prod-on-sandbox', '--channel-mch-no', 'CM1']
  beforeAll(async () => {
    const runtime = runtimeIn(c.env.XDG_DATA_HOME!)
    const platform = join(c.dir, 'platform-public.pem')
    writeFileSync(platform, runtime.platformPublicKeyPem)
    // production, but talking to the local sandbox, so the runs really send
    const added = await c.run(['profile', 'add', 'prod-on-sandbox', '--environment', 'production', '--base-url', sandboxUrl, '--mch-no', runtime.merchant.mchNo, '--private-key-file', runtime.merchant.privateKeyFile, '--platform-public-key-file', platform])
    expect(added.code).toBe(0)
  })

  it('is asked to confirm only what is left to send: the rest of a run on --resume, nothing for a finished file', async () => {
    const file = payoutFile(accounts('PROD', 2))
    expect((await c.run(['transfer', 'batch', file, ...live])).stderr).toContain(`a batch of 2 transfers (2.01 yuan) from ${file} moves real money on production profile prod-on-sandbox: pass --yes to confirm`)
    expect([0, 6]).toContain((await c.run(['transfer', 'batch', file, ...live, '--yes'])).code)

    // a finished file is refused before any confirmation: nothing would be sent
    const finished = await c.run(['transfer', 'batch', file, ...live])
    expect(finished.code).toBe(2)
    expect(finished.stderr).toContain('was run to the end already')
    expect(finished.stderr).not.toContain('pass --yes')

    // the second row's result lost, as after a kill: --resume settles it, and asks for it alone
    const lines = readFileSync(`${file}.journal`, 'utf8').trimEnd().split('\n')
    const lastResult = lines.findLastIndex((l) => JSON.parse(l).type === 'result')
    writeFileSync(`${file}.journal`, lines.filter((_, i) => i !== lastResult).join('\n') + '\n')
    const resumed = await c.run(['transfer', 'batch', file, ...live, '--resume'])
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toContain(`the rest of a batch from ${file} (1 transfer of 2 without a result yet) moves real money on production profile prod-on-sandbox: pass --yes to confirm`)
    expect([0, 6]).toContain((await c.run(['transfer', 'batch', file, ...live, '--resume', '--yes'])).code)
    const sent = new Set(journalLines(file).map((l) => l.bizTransferNo))
    expect((await sandboxTransfers(c)).filter((t) => sent.has(t.bizTransferNo)).map((t) => t.submissions)).toEqual([1, 1])
  })

  it('SIGTERM while the confirmation waits: nothing sent, no journal, exit 143', async () => {
    const file = payoutFile(accounts('SIGTERM', 1))
    const screen = terminal(['transfer', 'batch', file, ...live], {env: c.env, columns: 200})
    await screen.waitFor(/a batch of 1 transfer \(1\.00 yuan\) from .* on PRODUCTION \(prod-on-sandbox\)\?/, 20_000)
    process.kill(Number(execFileSync('pgrep', ['-P', String(screen.pid)], {encoding: 'utf8'}).trim()), 'SIGTERM')
    expect(await screen.exited).toBe(143)
    expect(screen.output()).toContain('SIGTERM: not confirmed; nothing was sent')
    expect(existsSync(`${file}.journal`)).toBe(false)
  }, 60_000)
})

describe('reports', () => {
  it('--json lists the failed rows with the platform transfer number, and ok agrees with the exit code', async () => {
    const file = payoutFile([...accounts('REP', 2), '2088REP_refused'])
    const result = await c.json(['transfer', 'batch', file, '--wait', '20s'])
    expect(result.code).toBe(5)
    expect(result.body.ok).toBe(false)
    expect(result.body.exitCode).toBe(5)
    expect(result.body.data.counts).toMatchObject({success: 2, fail: 1})
    expect(result.body.data.failed).toEqual([{line: 4, bizTransferNo: expect.stringMatching(/^BT/), outcome: 'fail', transferNo: expect.stringMatching(/^TR\d+/), code: 20045, message: expect.stringContaining('refused the payee')}])
  }, 60_000)

  it('--out has the columns --help names', async () => {
    const help = await c.run(['transfer', 'batch', '--help'])
    const file = payoutFile(accounts('COLS', 1))
    const out = join(c.dir, 'cols.csv')
    await c.run(['transfer', 'batch', file, '--out', out])
    const header = readFileSync(out, 'utf8').split('\n')[0]
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`write a result CSV (${header.split(',').join(', ')})`)
  }, 60_000)

  it('--dry-run on a terminal shows the first 50 rows of a long plan and says how to get all of them', async () => {
    const file = payoutFile(accounts('TERM', 120))
    const {output, code} = await onTerminal(['transfer', 'batch', file, '--dry-run'], c.env, 120)
    expect(code).toBe(0)
    expect(output.split('\n').filter((line) => /^\d+ +BT[0-9a-f]{30} +walletB/.test(line))).toHaveLength(50)
    expect(output).toContain('... and 70 more rows: --out FILE writes the whole plan')
    expect(output).toContain('dry run: 120 rows')
  }, 60_000)

  it('--wait reads a duration by the rule `sandbox clock advance` reads it, and both say it in --help', async () => {
    const file = payoutFile(accounts('WAIT', 1))
    const combined = await c.json(['transfer', 'batch', file, '--wait', '1h30m'])
    expect(combined.code, combined.stderr).toBe(0)
    expect(combined.body.data.counts.success).toBe(1)
    const unreadable = await c.run(['transfer', 'batch', file, '--wait=1x'])
    expect(unreadable.code).toBe(2)
    expect(unreadable.stderr).toContain(`--wait: "1x" is not a duration; write ${DURATION_RULE}`)
    for (const command of [['transfer', 'batch'], ['transfer', 'batch', 'status'], ['sandbox', 'clock', 'advance']]) {
      expect((await c.run([...command, '--help'])).stdout.replace(/\s+/g, ' '), command.join(' ')).toContain(DURATION_RULE)
    }
  }, 60_000)

  it('--dry-run gives the per-row plan, on stdout or with --out, and sends nothing', async () => {
    const file = payoutFile(accounts('PLAN', 3))
    const before = (await sandboxTransfers(c)).length
    const shown = await c.run(['transfer', 'batch', file, '--dry-run'])
    expect(shown.code).toBe(0)
    const lines = shown.stdout.split('\n')
    expect(lines[0].split('\t')).toEqual(['line', 'bizTransferNo', 'channel', 'amount', 'payee'])
    expect(lines[1]).toMatch(/^2\tBT[0-9a-f]{30}\twalletB\t100\t2088PLAN/)
    const out = join(c.dir, 'plan.csv')
    const written = await c.run(['transfer', 'batch', file, '--dry-run', '--out', out])
    expect(written.code).toBe(0)
    const rows = csvRows(out)
    expect(rows).toHaveLength(3)
    expect(rows[2]).toEqual(['4', expect.stringMatching(/^BT/), 'walletB', '102', expect.stringMatching(/^2088PLAN/)])
    // the plan's keys are the ones the run uses
    await c.run(['transfer', 'batch', file])
    expect(journalLines(file).filter((l) => l.type === 'sending').map((l) => l.bizTransferNo)).toEqual(rows.map((r) => r[1]))
    expect((await sandboxTransfers(c)).length).toBe(before + 3)
    // one row is counted as one
    const one = await c.run(['transfer', 'batch', payoutFile(accounts('ONE', 1)), '--dry-run'])
    expect(one.stderr).toContain('dry run: 1 row, 1.00 yuan in all; nothing was sent')
  }, 60_000)
})
