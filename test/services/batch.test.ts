// The batch service called directly, as the command calls it: a dry run's plan, and what a run
// refuses before it asks for a platform (nothing is sent, no journal is written).
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {InterruptedError, UsageError} from '../../src/errors.js'
import type {ClientConfig} from '../../src/client/pipeline.js'
import {generateRsaKeyPair, loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {verdict} from '../../src/cli/batch.js'
import {batchExitCode, batchStatus, planBatch, runBatch, type RowProblem} from '../../src/services/batch/index.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'unipay-batch-'))
  dirs.push(dir)
  const path = join(dir, 'payouts.csv')
  writeFileSync(path, text)
  return path
}

const GOOD = 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088A,150\nwalletB,user_id,2088B,250\n'
const defaults = {channelMchNo: 'CM1'}

describe('planBatch', () => {
  it('checks the whole file, totals it by channel, and writes every row\'s plan to out', async () => {
    const payouts = file(GOOD)
    const out = `${payouts}.plan.csv`
    const plan = await planBatch(payouts, 'payouts.csv', defaults, () => {}, out)
    expect(plan).toMatchObject({rows: 2, totalCents: 400, problems: 0, byChannel: {walletB: {rows: 2, cents: 400}}})
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines[0]).toBe('line,bizTransferNo,channel,amount,payee')
    expect(lines.slice(1).map((l) => l.split(',')[4])).toEqual(['2088A', '2088B'])
  })

  it('refuses a file with problems, each reported by line, and writes no plan', async () => {
    const payouts = file('channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088A,abc\nwalletB,user_id,2088B,-1\n')
    const problems: RowProblem[] = []
    await expect(planBatch(payouts, 'payouts.csv', defaults, (p) => problems.push(p), `${payouts}.plan.csv`)).rejects.toThrow(
      new UsageError('2 problems in payouts.csv: nothing would be sent'),
    )
    expect(problems.map((p) => p.line)).toEqual([2, 3])
    expect(existsSync(`${payouts}.plan.csv`)).toBe(false)
  })
})

describe('runBatch, before anything is sent', () => {
  const options = (path: string, connect: () => Promise<ClientConfig>, signal?: AbortSignal) => ({
    file: path,
    defaults,
    connect,
    concurrency: 4,
    resume: false,
    signal,
    onProblem: () => {},
  })
  const unreached = async (): Promise<never> => {
    throw new Error('connect must not be called')
  }

  it('refuses a bad file without asking for a platform', async () => {
    const payouts = file('channel,payeeType,payeAccount,amount\nwalletB,user_id,2088A,150\n')
    await expect(runBatch(options(payouts, unreached))).rejects.toBeInstanceOf(UsageError)
    expect(existsSync(`${payouts}.journal`)).toBe(false)
  })

  it('refuses an unfinished run without --resume without asking for a platform', async () => {
    const payouts = file(GOOD)
    // the journal of a run killed after its first send: a start line and one row in flight
    const {fileSha256} = await planBatch(payouts, 'payouts.csv', defaults, () => {})
    const start = {type: 'start', fileSha256, rows: 2, mchNo: 'M1', baseUrl: 'http://127.0.0.1:9', at: '2026-11-24T00:00:00.000Z'}
    writeFileSync(`${payouts}.journal`, `${JSON.stringify(start)}\n${JSON.stringify({type: 'sending', index: 0, line: 2, bizTransferNo: 'BT1', channel: 'walletB', amount: 150})}\n`)
    await expect(runBatch(options(payouts, unreached))).rejects.toThrow(/records an unfinished run of .*payouts\.csv \(started 2026-11-24 08:00:00; 0 of 2 rows have a result\)$/)
  })

  it('ends with the signal, before the platform and without a journal, when interrupted first', async () => {
    const payouts = file(GOOD)
    const controller = new AbortController()
    controller.abort('SIGTERM')
    const error = await runBatch(options(payouts, unreached, controller.signal)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InterruptedError)
    expect(error).toMatchObject({exitCode: 143})
    expect(existsSync(`${payouts}.journal`)).toBe(false)
  })

  it('refuses a platform without the merchant key, or without the platform key to verify with, before any journal', async () => {
    const pair = generateRsaKeyPair()
    const base: ClientConfig = {baseUrl: 'http://127.0.0.1:9', mchNo: 'M1', verify: true}
    const payouts = file(GOOD)
    await expect(runBatch(options(payouts, async () => ({...base, platformKey: loadPublicKey(pair.publicKeyPem)})))).rejects.toThrow(
      new UsageError('no merchant private key: set one in the profile or pass --private-key'),
    )
    await expect(runBatch(options(payouts, async () => ({...base, privateKey: loadPrivateKey(pair.privateKeyPem)})))).rejects.toThrow(
      new UsageError('no platform public key to verify the answers with: set one in the profile, or pass --no-verify'),
    )
    expect(existsSync(`${payouts}.journal`)).toBe(false)
  })
})

describe('runBatch, a row failing in a way no outcome covers', () => {
  it('ends the run with that error once the rows in flight are done, with no rejection left unawaited', async () => {
    const pair = generateRsaKeyPair()
    // fewer rows than the concurrency: the rows fail while the run still reads the file's end
    const payouts = file(GOOD)
    const client: ClientConfig = {
      baseUrl: 'http://127.0.0.1:9',
      mchNo: 'M1',
      verify: true,
      privateKey: loadPrivateKey(pair.privateKeyPem),
      platformKey: loadPublicKey(pair.publicKeyPem),
      now: () => {
        throw new Error('a clock that fails')
      },
    }
    await expect(runBatch({file: payouts, defaults, connect: async () => client, concurrency: 4, resume: false, onProblem: () => {}})).rejects.toThrow('a clock that fails')
  })
})

describe('the journal lock', () => {
  const started = () => readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19]

  it('refuses a run while a live process holds the lock, and takes over one whose pid now belongs to another process', async () => {
    const payouts = file(GOOD)
    const lock = `${payouts}.journal.lock`
    const holder = {pid: process.pid, command: 'transfer batch', at: '2026-11-24T02:30:00.000Z', token: 't'}
    writeFileSync(lock, JSON.stringify({...holder, started: started()}))
    const unreached = async (): Promise<never> => {
      throw new Error('connect must not be called')
    }
    const run = (connect: () => Promise<ClientConfig>, onNotice?: (message: string) => void) => runBatch({file: payouts, defaults, connect, concurrency: 2, resume: false, onProblem: () => {}, onNotice})
    const refused = await run(unreached).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(UsageError)
    expect(refused).toMatchObject({details: {reason: 'locked', pid: process.pid, command: 'transfer batch'}})
    expect(readFileSync(lock, 'utf8')).toContain('"token":"t"')
    // the same pid, but a process started at another time: the lock's process is gone
    writeFileSync(lock, JSON.stringify({...holder, started: '1'}))
    const notices: string[] = []
    await expect(run(async () => {
      throw new UsageError('stop here')
    }, (m) => notices.push(m))).rejects.toThrow('stop here')
    expect(notices).toEqual([`${lock}: the process that held it (pid ${process.pid}, transfer batch, since 2026-11-24T02:30:00.000Z) is no longer running; this one took it over`])
    expect(existsSync(lock)).toBe(false)
  })
})

describe('batchStatus', () => {
  const client: ClientConfig = {baseUrl: 'http://127.0.0.1:9', mchNo: 'M1', verify: true}
  /** A journal of a run of GOOD stopped after its first row succeeded: the second was never sent. */
  async function stoppedRun(): Promise<string> {
    const payouts = file(GOOD)
    const {fileSha256} = await planBatch(payouts, 'payouts.csv', defaults, () => {})
    const start = {type: 'start', fileSha256, rows: 2, mchNo: 'M1', baseUrl: client.baseUrl, at: '2026-11-24T00:00:00.000Z'}
    const row = {index: 0, line: 2, bizTransferNo: 'BT1', channel: 'walletB', amount: 150}
    writeFileSync(`${payouts}.journal`, [start, {type: 'sending', ...row}, {type: 'result', ...row, outcome: 'success', transferNo: 'TR1'}].map((e) => JSON.stringify(e)).join('\n') + '\n')
    return payouts
  }

  it('counts the rows an interrupted run never sent: exit 5, and how to finish', async () => {
    const payouts = await stoppedRun()
    const tally = await batchStatus({file: payouts, client, concurrency: 2})
    expect(tally).toMatchObject({rows: 2, notSent: 1, counts: {success: 1, processing: 0, fail: 0, unknown: 0}})
    expect(batchExitCode(tally)).toBe(5)
    const next = {run: 'unipay transfer batch payouts.csv --out r.csv', status: 'unipay transfer batch status payouts.csv --out r.csv'}
    expect(verdict(tally, next)).toEqual({exitCode: 5, note: '1 row was never sent; finish with: unipay transfer batch payouts.csv --out r.csv --resume'})
  })

  it('refuses a batch file changed since its run, and reads the run from its journal given directly', async () => {
    const payouts = await stoppedRun()
    writeFileSync(payouts, `${GOOD}walletB,user_id,2088C,350\n`)
    await expect(batchStatus({file: payouts, client, concurrency: 2})).rejects.toThrow(/payouts\.csv changed since the run .*payouts\.csv\.journal records \(sha256 [0-9a-f]{12}, now [0-9a-f]{12}\): restore it, or give the journal itself/)
    expect(await batchStatus({file: `${payouts}.journal`, client, concurrency: 2})).toMatchObject({rows: 2, notSent: 1})
  })
})
