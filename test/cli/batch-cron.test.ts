// `transfer batch` as an operator leaves it to cron: the README recipe on two days, re-runs,
// rows left processing, an unreachable platform, interruptions, header problems and reports.
import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {onTerminal, terminal} from '../helpers/pty.js'
import {runtimeIn, sandboxTransfers, waitFor} from '../helpers/sandbox.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const README = fileURLToPath(new URL('../../README.md', import.meta.url))

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

describe('the README cron recipe', () => {
  it('runs unchanged on two days with two different files: exit 0 with no mail, then exit 5 with the results mailed', async () => {
    const readme = readFileSync(README, 'utf8')
    const script = /In cron[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]
    const dir = join(c.dir, 'payouts')
    const bin = join(c.dir, 'bin')
    mkdirSync(dir)
    mkdirSync(bin)
    writeFileSync(join(dir, 'run.sh'), script)
    writeFileSync(join(bin, 'unipay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
    writeFileSync(join(bin, 'mail'), `#!/bin/sh\n{ echo "mail $*"; cat; } >> "${join(c.dir, 'mail.log')}"\n`)
    chmodSync(join(bin, 'unipay'), 0o755)
    chmodSync(join(bin, 'mail'), 0o755)
    const cron = () =>
      new Promise<number>((resolve) => {
        // as cron runs it: output appended to run.log
        const child = spawn('/bin/sh', ['-c', `${join(dir, 'run.sh')} >> ${join(dir, 'run.log')} 2>&1`], {env: {...c.env, PATH: `${bin}:${process.env.PATH}`}})
        child.on('close', (code) => resolve(code ?? -1))
      })
    chmodSync(join(dir, 'run.sh'), 0o755)
    const mailLog = join(c.dir, 'mail.log')

    payoutFile(accounts('DAY1', 5), 'today.csv', dir)
    expect(await cron()).toBe(0)
    expect(existsSync(mailLog)).toBe(false)
    expect(csvRows(join(dir, 'today-results.csv')).map((r) => r[4])).toEqual(Array(5).fill('success'))

    payoutFile([...accounts('DAY2', 3), '2088DAY2_fails_later'], 'today.csv', dir)
    expect(await cron()).toBe(5)
    const mail = readFileSync(mailLog, 'utf8')
    expect(mail).toContain('mail -s payouts: some rows failed ops@example.com')
    expect(mail).toMatch(/,fail,TR\d+,,the channel failed the transfer/)
    const day2 = csvRows(join(dir, 'today-results.csv'))
    expect(day2.map((r) => r[4]).sort()).toEqual(['fail', 'success', 'success', 'success'])
    // day 1's journal was kept aside, not lost
    expect(readdirSync(dir).filter((f) => /^today\.csv\..+\.journal$/.test(f))).toHaveLength(1)
  }, 120_000)
})

describe('running a file again', () => {
  it('sends nothing for a finished file and reports the recorded results; a changed file starts fresh', async () => {
    const file = payoutFile(accounts('AGAIN', 3))
    expect((await c.run(['transfer', 'batch', file, '--wait', '30s'])).code).toBe(0)
    const before = (await sandboxTransfers(c)).length
    const again = await c.json(['transfer', 'batch', file])
    expect(again.code).toBe(0)
    expect(again.body).toMatchObject({ok: true, exitCode: 0, data: {rows: 3, previouslyDone: 3, counts: {success: 3}}})
    expect(again.stderr).toContain('nothing to send: all 3 rows were sent by an earlier run')
    expect((await sandboxTransfers(c)).length).toBe(before)
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
    expect(run.stderr).toContain('2 row(s) still processing')
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
    // a resumed or repeated run now finds nothing to do and agrees
    expect((await c.run(['transfer', 'batch', file, '--resume'])).code).toBe(0)
  }, 60_000)

  it('--wait follows the rows until the payee confirms', async () => {
    const file = walletAFile('wait.csv', 1)
    const child = spawn(process.execPath, [BIN, 'transfer', 'batch', file, '--wait', '--json'], {env: c.env})
    let stdout = ''
    child.stdout.on('data', (d) => (stdout += d))
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
    const transferNo = await waitFor(() => journalSoFar(file).find((l) => l.type === 'result')?.transferNo)
    await new Promise((resolve) => setTimeout(resolve, 500))
    await confirm(transferNo)
    expect(await exited).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ok: true, data: {counts: {success: 1, processing: 0}}})
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
    expect(down.stderr).toContain('platform unreachable: nothing more was sent')
    expect(down.stderr).toContain('run again with --resume')
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
    it(`${signal}: stops sending, finishes the rows in flight, writes --out and says how to resume (exit ${signal === 'SIGINT' ? 130 : 143})`, async () => {
      const file = payoutFile(accounts(signal, 400))
      const out = join(c.dir, `${signal}-results.csv`)
      await c.run(['sandbox', 'faults', 'add', 'latency', '--latency', '50', '--times', '100000'])
      const child = spawn(process.execPath, [BIN, 'transfer', 'batch', file, '--concurrency', '4', '--out', out], {env: c.env})
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
      expect(stderr).toMatch(new RegExp(`interrupted by ${signal}: \\d+ row\\(s\\) not sent`))
      expect(stderr).toContain('--resume')
      const written = csvRows(out)
      expect(written.length).toBeGreaterThan(0)
      expect(written.length).toBeLessThan(400)
      const resumed = await c.run(['transfer', 'batch', file, '--resume', '--concurrency', '8', '--out', out, '--wait', '30s'])
      expect(resumed.code).toBe(0)
      expect(csvRows(out)).toHaveLength(400)
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

    const finished = await c.run(['transfer', 'batch', file, ...live])
    expect([0, 6]).toContain(finished.code)
    expect(finished.stderr).toContain('nothing to send')
    expect(finished.stderr).not.toContain('--yes')

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
  }, 60_000)
})
