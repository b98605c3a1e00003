// `reconcile LEDGER` through the CLI against a real sandbox: every class of difference beside
// rows that match, a ledger that matches, bad files refused before anything is asked, the
// platform unreachable, --out and --json, and earlier runs. A proxy in front of the sandbox
// records what is asked and answers the few things a sandbox never says (a signed error to a
// query, an answer whose signature was tampered with).
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import type {ReconcileResult} from '../../src/commands/reconcile.js'
import type {Summary} from '../../src/services/reconcile/index.js'
import {cli, type Cli} from '../helpers/cli.js'
import {proxyTo, type Proxy} from '../helpers/proxy.js'
import {call, type ClientConfig} from '../../src/client/pipeline.js'
import {endpoints} from '../../src/protocol/endpoints.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {controlHeaders, freePort, runtimeIn, waitFor} from '../helpers/sandbox.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

let c: Cli
let proxy: Proxy
/** Payments: A paid 1250 (refunded 300 by R1, 100 by the shared refund), B paid 800, C open 500, E paid 600 (100 by the shared refund). */
const n = {A: '', B: '', C: '', E: '', R1: '', R1no: '', shared: '', sharedOfA: '', sharedOfE: '', T: ''}

const asked = () => proxy.received.filter((r) => r.path.startsWith('/unipay/') || r.path.startsWith('/mch/'))
let files = 0
function ledger(text: string, extension = 'csv'): string {
  const file = join(c.dir, `ledger${++files}.${extension}`)
  writeFileSync(file, text)
  return file
}
/** The tab-separated differences on stdout, as objects by the header's columns. */
function differences(stdout: string): Record<string, string>[] {
  const [header, ...rows] = stdout.trim().split('\n').filter(Boolean)
  if (!header) return []
  const columns = header.split('\t')
  return rows.map((row) => Object.fromEntries(row.split('\t').map((cell, i) => [columns[i], cell])))
}
const via = () => ['--base-url', proxy.url]

beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  const paid = async (amount: number) => (await c.json(['pay', 'create', '--title', 'Tea', '--amount', String(amount), '--auth-code', '134567890123456789'])).body.data.bizOrderNo as string
  n.A = await paid(1250)
  n.B = await paid(800)
  n.E = await paid(600)
  n.C = (await c.json(['pay', 'create', '--title', 'Tea', '--amount', '500', '--method', 'walletA_qr'])).body.data.bizOrderNo
  const refund = async (order: string, amount: number, bizRefundNo?: string) => {
    const data = (await c.json(['refund', 'create', '--biz-order-no', order, '--amount', String(amount), ...(bizRefundNo ? ['--biz-refund-no', bizRefundNo] : [])])).body.data
    expect((await c.run(['sandbox', 'refund', 'settle', data.refundNo])).code).toBe(0)
    return data
  }
  ;({bizRefundNo: n.R1, refundNo: n.R1no} = await refund(n.A, 300))
  n.shared = `RS${randomBytes(4).toString('hex')}`
  n.sharedOfA = (await refund(n.A, 100, n.shared)).refundNo
  n.sharedOfE = (await refund(n.E, 100, n.shared)).refundNo
  n.T = `BT${randomBytes(6).toString('hex')}`
  // a walletA transfer waits for its payee: confirmed, it is final (success) at once
  expect((await c.run(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'o-payee-1', '--amount', '150', '--biz-transfer-no', n.T])).code).toBe(0)
  expect((await c.run(['sandbox', 'transfer', 'confirm', n.T])).code).toBe(0)
  proxy = await proxyTo(runtimeIn(c.env.XDG_DATA_HOME!).url)
})

afterAll(async () => {
  await proxy?.close()
  await c.cleanup()
})

beforeEach(() => {
  proxy.received.length = 0
  proxy.answer = undefined
  proxy.down = false
  proxy.delayMs = 0
})

describe('reconcile: the classes of difference', () => {
  it('a ledger with one row of each class beside matching rows: exit 5, each difference classed once, the matching rows not printed', async () => {
    proxy.answer = (body) => (body.bizOrderNo === 'P-ERR-1' ? {code: 20080, msg: 'operation failed: the channel is down'} : undefined)
    const file = ledger(
      [
        'bizOrderNo,bizRefundNo,bizTransferNo,channel,amount,status',
        `${n.A},,,,1250,success`,
        `${n.B},,,,900,success`,
        `${n.C},,,,500,success`,
        'P-NOT-THERE,,,,100,success',
        `${n.A},${n.R1},,,300,success`,
        `${n.B},,,,900,success`,
        `,${n.shared},,,100,success`,
        'P-ERR-1,,,,100,success',
        `,,${n.T},walletA,150,success`,
        '',
      ].join('\n'),
    )
    const run = await c.run(['reconcile', file, ...via()])
    expect(run.code, run.stderr).toBe(5)
    const found = differences(run.stdout)
    const byLine = Object.fromEntries(found.map((d) => [d.line, d]))
    expect(found.map((d) => Number(d.line)).sort((a, b) => a - b)).toEqual([3, 4, 5, 7, 8, 9])
    expect(byLine[3]).toMatchObject({kind: 'pay', number: n.B, difference: 'amount differs', ledger: '900', platform: '800'})
    expect(byLine[4]).toMatchObject({kind: 'pay', number: n.C, difference: 'status differs', ledger: 'success', platform: 'progress'})
    expect(byLine[5]).toMatchObject({kind: 'pay', number: 'P-NOT-THERE', difference: 'missing on platform', ledger: '100', platform: ''})
    expect(byLine[7]).toMatchObject({kind: 'pay', number: n.B, difference: 'duplicate in ledger', message: 'the same payment as line 3'})
    expect(byLine[8]).toMatchObject({kind: 'refund', number: n.shared, difference: 'ambiguous'})
    expect(byLine[8].message).toContain('give the row its bizOrderNo')
    expect(byLine[9]).toMatchObject({kind: 'pay', number: 'P-ERR-1', difference: 'platform error', code: '20080', message: 'operation failed: the channel is down'})
    // the matching rows (a payment, a refund, a transfer) are counted, not printed
    for (const number of [n.A, n.R1, n.T]) expect(run.stdout).not.toContain(`\t${number}\t`)
    expect(run.stderr).toContain('9 of 9 rows compared, 3 matched, 6 differ')
    expect(run.stderr).toMatch(/matched\s+3\s+1700 \(¥17\.00\)\s+1700 \(¥17\.00\)/)
    expect(run.stderr).toMatch(/amount differs\s+1\s+900 \(¥9\.00\)\s+800 \(¥8\.00\)/)
    // the duplicate was never asked: the first row of its number was, once
    expect(asked().filter((r) => r.body?.bizOrderNo === n.B)).toHaveLength(1)
  })

  it('an answer that does not verify is unverified, never a match: exit 3 (over 5), the other rows still compared', async () => {
    proxy.answer = (body) => (body.bizOrderNo === n.A ? {code: 0, msg: 'success', data: {orderNo: 'DP1', bizOrderNo: n.A, amount: 1250, status: 'success'}, tamper: true} : undefined)
    const file = ledger(`bizOrderNo,amount,status\n${n.A},1250,success\n${n.B},800,success\nP-NOT-THERE,1,success\n`)
    const run = await c.run(['reconcile', file, ...via()])
    expect(run.code).toBe(3)
    const found = differences(run.stdout)
    expect(found.map((d) => [d.number, d.difference])).toEqual(expect.arrayContaining([[n.A, 'unverified'], ['P-NOT-THERE', 'missing on platform']]))
    expect(found).toHaveLength(2)
    expect(found.find((d) => d.number === n.A)!.message).toContain('does not verify')
    expect(run.stderr).toContain('3 of 3 rows compared, 1 matched, 2 differ')
    expect(run.stderr).toContain('1 answer did not verify')
  })
})

describe('reconcile: a ledger that matches', () => {
  it('exit 0 and nothing on stdout: a BOM, CRLF, semicolons, yuan, a kind column, the fund-status word processing for a payment; other columns named once', async () => {
    const rows = [
      'kind;bizOrderNo;bizRefundNo;bizTransferNo;channel;yuan;status;customer;note',
      `pay;${n.A};;;;12.50;success;Ann;`,
      `refund;${n.A};${n.R1};;;3;success;Ann;refund`,
      `pay;${n.C};;;;5.00;processing;Bo;open`,
      `transfer;;;${n.T};walletA;1.5;success;;`,
    ]
    const file = ledger(`\uFEFF${rows.join('\r\n')}\r\n`)
    const run = await c.run(['reconcile', file, ...via()])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('4 of 4 rows compared, 4 matched, 0 differ')
    expect(run.stderr.match(/ignored \(not the ledger's\): customer, note/g)).toHaveLength(1)
  })

  it('--dry-run checks the ledger and says what it holds; nothing is asked', async () => {
    const file = ledger(`bizOrderNo,bizRefundNo,amount,status\n${n.A},,1250,success\n${n.A},${n.R1},300,success\n${n.A},,1250,success\n`)
    const run = await c.run(['reconcile', file, ...via(), '--dry-run'])
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(': 3 rows, 2 payments (¥25.00), 1 refund (¥3.00); 1 row repeats an earlier row\'s number; every row is valid, nothing was asked')
    expect(proxy.received).toEqual([])
    // it compares nothing, so it has no differences to write: --out beside it is refused, not ignored
    const out = join(c.dir, 'dry-differences.csv')
    const refused = await c.run(['reconcile', file, ...via(), '--dry-run', '--out', out])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--dry-run')
    expect(existsSync(out)).toBe(false)
  })

  it('a JSON-lines ledger: the kind comes from the number each line gives', async () => {
    const file = ledger(
      [JSON.stringify({bizOrderNo: n.B, amount: 800, status: 'success'}), JSON.stringify({bizOrderNo: n.A, bizRefundNo: n.R1, amount: 300, status: 'success'}), JSON.stringify({bizTransferNo: n.T, channel: 'walletA', yuan: '1.50', status: 'success'}), ''].join('\n'),
      'jsonl',
    )
    const summary = await c.result<ReconcileResult>(['reconcile', file, ...via()])
    expect((summary as Summary).matched).toEqual({rows: 3, cents: 800 + 300 + 150})
  })
})

describe('reconcile: bad ledgers', () => {
  it('every bad row is reported with its line, nothing is asked (the platform sees no request), exit 2', async () => {
    const file = ledger(
      [
        'bizOrderNo,bizRefundNo,bizTransferNo,channel,amout,amount,status,refundd',
        'P1,,,,,1250,paid,',
        'P2,,,,,12.50,success,',
        ',,,,,100,success,',
        ',RF1,BT1,,,100,success,',
        ',,BT2,walletZ,,100,success,',
        ',RF2,,,,100,processing,',
        'P3,,,,,100,success,x',
        // a payment's number is its bizOrderNo: its problem is said once
        '"P4\nx",,,,,100,success,',
        '',
      ].join('\n'),
    )
    const run = await c.run(['reconcile', file, ...via(), '--debug'])
    expect(run.code).toBe(2)
    expect(run.stderr.split('\n').filter((l) => l.startsWith('line '))).toEqual([
      'line 1: amout: unknown column: did you mean amount?',
      'line 1: refundd: unknown column: did you mean refunded?',
      'line 2: status: "paid" is not a payment status: one of wait, progress, success, close, cancel, fail, timeout, init, processing',
      'line 3: amount: "12.50" is not a whole number of cents (use a yuan column for yuan)',
      'line 4: no number: a row needs bizOrderNo (a payment), bizRefundNo (a refund) or bizTransferNo (a transfer)',
      'line 5: both bizRefundNo and bizTransferNo: a kind column (pay, refund, transfer) says which record the row is',
      'line 6: channel: "walletZ" is not one of walletA, walletB, walletD',
      'line 7: status: "processing" is not a refund status: one of progress, success, fail, close',
      'line 9: bizOrderNo: must not contain control characters',
    ])
    expect(run.stderr).toContain(`9 problems in ${file}: nothing was asked`)
    expect(run.stderr).not.toContain('POST')
    expect(proxy.received).toEqual([])
  })

  it('a repeated JSON key and a repeated CSV column are bad rows, as in transfer batch', async () => {
    const json = ledger(`{"bizOrderNo":"${n.A}","amount":1250,"status":"success","amount":1}\n`, 'jsonl')
    const repeated = await c.run(['reconcile', json, ...via()])
    expect(repeated.code).toBe(2)
    expect(repeated.stderr).toContain('line 1: amount: the key is repeated with another value')
    const csv = ledger(`bizOrderNo,amount,status,amount\n${n.A},1250,success,1\n`)
    const column = await c.run(['reconcile', csv, ...via()])
    expect(column.code).toBe(2)
    expect(column.stderr).toContain('line 1: amount: the column is repeated (columns 2 and 4)')
    expect(proxy.received).toEqual([])
  })

  it('a ledger whose payments give refunded needs a management session: said before anything is asked (exit 2)', async () => {
    const file = ledger(`bizOrderNo,amount,status,refunded\n${n.A},1250,success,400\n`)
    const run = await c.run(['reconcile', file, ...via()])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('1 payment of')
    expect(run.stderr).toContain('gives refunded, which is compared through the management API, and this profile has no session: log in first (unipay mch login --account ACCOUNT); nothing was asked')
    expect(proxy.received).toEqual([])
  })
})

describe('reconcile: the platform out of reach', () => {
  it('exit 4 when nothing answers: nothing compared, and the command that goes on', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${Array.from({length: 40}, (_, i) => `P-DOWN-${i},100,success`).join('\n')}\n`)
    const down = `http://127.0.0.1:${await freePort()}`
    const run = await c.run(['reconcile', file, '--base-url', down, '--concurrency', '2'])
    expect(run.code).toBe(4)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/the platform did not answer: 0 of 40 rows compared, 40 rows not; once it answers, go on with: unipay reconcile \S+ --base-url http:\/\/127\.0\.0\.1:\d+ --concurrency 2 --resume/)
  })

  it('a platform that stops answering mid-run: exit 4 with how far it got; --resume asks only the rows not compared', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${Array.from({length: 40}, (_, i) => `P-GONE-${i},100,success`).join('\n')}\n`)
    // after ten answers the platform goes away (connections cut)
    proxy.answer = () => {
      if (asked().length > 10) proxy.down = true
      return undefined
    }
    const first = await c.run(['reconcile', file, ...via(), '--concurrency', '2'])
    expect(first.code, first.stderr).toBe(4)
    const compared = Number(/the platform did not answer: (\d+) of 40 rows compared/.exec(first.stderr)?.[1])
    expect(compared).toBeGreaterThanOrEqual(8)
    expect(compared).toBeLessThanOrEqual(11)
    // the rows compared were reported (missing on platform) as they were found
    const reported = differences(first.stdout).map((d) => d.number)
    expect(reported).toHaveLength(compared)
    proxy.down = false
    proxy.received.length = 0
    proxy.answer = undefined
    const resumed = await c.run(['reconcile', file, ...via(), '--concurrency', '2', '--resume'])
    expect(resumed.code).toBe(5)
    expect(resumed.stderr).toContain(`resuming: ${compared} of 40 rows compared by an earlier run`)
    const again = asked().map((r) => r.body!.bizOrderNo as string)
    expect(again).toHaveLength(40 - compared)
    expect(again.filter((number) => reported.includes(number))).toEqual([])
    expect(differences(resumed.stdout).map((d) => d.number).sort()).toEqual(again.sort())
    expect(resumed.stderr).toContain(`40 of 40 rows compared (${compared} by an earlier run), 0 matched, 40 differ`)
  })
})

describe('reconcile with a management session', () => {
  beforeAll(async () => {
    expect((await c.run(['sandbox', 'users', 'add', 'finance', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
    expect((await c.run(['mch', 'login', '--account', 'finance', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  })

  it('refunded against the successful refunds of every page (exact matches only), a shared bizRefundNo told apart by its order, and the window: refunds the ledger does not hold', async () => {
    // a longer number that the management API's part-match filter finds too, refunded 200: not the order's
    const longer = `${n.E}9`
    expect((await c.run(['pay', 'create', '--title', 'Tea', '--amount', '900', '--auth-code', '134567890123456789', '--biz-order-no', longer])).code).toBe(0)
    const extra = (await c.json(['refund', 'create', '--biz-order-no', longer, '--amount', '200'])).body.data
    expect((await c.run(['sandbox', 'refund', 'settle', extra.refundNo])).code).toBe(0)
    // an order refunded a cent at a time, 101 times: more than a page of the management API
    const many = (await c.json(['pay', 'create', '--title', 'Tea', '--amount', '5000', '--auth-code', '134567890123456789'])).body.data.bizOrderNo
    const runtime = runtimeIn(c.env.XDG_DATA_HOME!)
    const client: ClientConfig = {baseUrl: runtime.url, mchNo: runtime.merchant.mchNo, appId: runtime.merchant.appId, privateKey: loadPrivateKey(readFileSync(runtime.merchant.privateKeyFile, 'utf8')), platformKey: loadPublicKey(runtime.platformPublicKeyPem), verify: true}
    for (let i = 0; i < 101; i++) {
      const refundNo = (await call<{refundNo: string}>(client, endpoints.refund, {bizOrderNo: many, amount: 1, bizRefundNo: `RM${i}`})).response!.data.refundNo
      expect((await fetch(`${runtime.url}/_sandbox/refunds/${refundNo}/settle`, {method: 'POST', headers: controlHeaders(runtime), body: '{}'})).status).toBe(200)
    }
    const file = ledger(
      [
        'bizOrderNo,bizRefundNo,amount,status,refunded',
        `${many},,5000,success,101`,
        `${n.A},,1250,success,400`,
        `${n.E},,600,success,999`,
        `${n.B},,800,success,0`,
        `${n.E},${n.shared},100,success,`,
        `${n.B},${n.R1},300,success,`,
        `${longer},${extra.bizRefundNo},200,success,`,
        '',
      ].join('\n'),
    )
    const start = '2020-01-01 00:00:00'
    const end = '2099-12-31 23:59:59'
    const run = await c.run(['reconcile', file, ...via(), '--create-time-start', start, '--create-time-end', end])
    expect(run.code, run.stderr).toBe(5)
    const found = differences(run.stdout)
    const of = (difference: string) => found.filter((d) => d.difference === difference)
    expect(of('refunded differs')).toEqual([expect.objectContaining({line: '4', number: n.E, ledger: '999', platform: '100'})])
    expect(of('missing on platform')).toEqual([expect.objectContaining({line: '7', kind: 'refund', number: n.R1})])
    expect(of('missing on platform')[0].message).toBe(`the platform's refund ${n.R1} (${n.R1no}) is of order ${n.A}, not ${n.B}`)
    // the shared number's refund of A, and R1 (the ledger gives it to B): only the platform holds them
    expect(of('missing in ledger').map((d) => [d.line, d.number, d.platformNo]).sort()).toEqual([['', n.R1, n.R1no], ['', n.shared, n.sharedOfA], ...Array.from({length: 101}, (_, i) => ['', `RM${i}`, expect.any(String)])].sort())
    expect(found).toHaveLength(105)
    expect(run.stderr).toContain('7 of 7 rows compared, 5 matched, 2 differ; 103 refunds of 2020-01-01 00:00:00 to 2099-12-31 23:59:59 missing in the ledger')
    // the management API was asked by part of the number, and the longer number's refund left out
    expect(asked().some((r) => r.path.startsWith('/mch/order/refund/page') && r.path.includes(`bizOrderNo=${n.E}&`))).toBe(true)
  })

  it('a shared bizRefundNo given its bizOrderNo is told apart whenever a session is there, with no refunded column and no window', async () => {
    const file = ledger(['bizRefundNo,bizOrderNo,amount,status', `${n.shared},${n.E},100,success`, `${n.shared},${n.B},100,success`, `${n.shared},,100,success`, ''].join('\n'))
    const run = await c.run(['reconcile', file, ...via()])
    expect(run.code, run.stderr).toBe(5)
    // printed as found: in line order here
    const found = differences(run.stdout).sort((a, b) => Number(a.line) - Number(b.line))
    expect(found.map((d) => [d.line, d.difference])).toEqual([
      ['3', 'missing on platform'],
      ['4', 'ambiguous'],
    ])
    expect(found[1].message).toContain('give the row its bizOrderNo')
    expect(run.stdout + run.stderr).not.toContain('mch login')
  })

  it('the window needs both ends, each a GMT+8 time, the start not after the end (exit 2, nothing asked)', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${n.B},800,success\n`)
    const one = await c.run(['reconcile', file, ...via(), '--create-time-start', '2026-01-01 00:00:00'])
    expect(one.code).toBe(2)
    expect(one.stderr).toContain('--create-time-end')
    const bad = await c.run(['reconcile', file, ...via(), '--create-time-start', '2026-01-02', '--create-time-end', '2026-01-01 00:00:00'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--create-time-start: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)')
    const backwards = await c.run(['reconcile', file, ...via(), '--create-time-start', '2026-01-02 00:00:00', '--create-time-end', '2026-01-01 00:00:00'])
    expect(backwards.code).toBe(2)
    expect(backwards.stderr).toContain('--create-time-end: must not be before --create-time-start (2026-01-02 00:00:00)')
    expect(proxy.received).toEqual([])
  })
})

describe('reconcile: what it writes', () => {
  it('--out: every difference, mode 0600, a cell a spreadsheet would run as a formula made inert; checked before anything is asked', async () => {
    const file = ledger(`bizOrderNo,amount,status\n"=HYPERLINK(""http://x"")",100,success\n@SUM(A1),200,success\n-1+1,300,success\n${n.B},800,success\n`)
    const out = join(c.dir, 'differences.csv')
    const run = await c.run(['reconcile', file, ...via(), '--out', out])
    expect(run.code).toBe(5)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines[0]).toBe('line,kind,number,platformNo,difference,ledger,platform,ledgerCents,platformCents,code,message')
    expect(lines.slice(1).sort()).toEqual([
      `2,pay,"'=HYPERLINK(""http://x"")",,missing on platform,100,,100,0,,"the platform has no payment =HYPERLINK(""http://x"") (trade not found)"`,
      "3,pay,'@SUM(A1),,missing on platform,200,,200,0,,the platform has no payment @SUM(A1) (trade not found)",
      "4,pay,'-1+1,,missing on platform,300,,300,0,,the platform has no payment -1+1 (trade not found)",
    ])
    for (const [flag, where, says] of [
      ['--out', join(c.dir, 'no-such-folder', 'd.csv'), 'does not exist'],
      ['--out', file, 'is the ledger'],
      ['--journal', join(c.dir, 'no-such-folder', 'j'), 'does not exist'],
    ]) {
      proxy.received.length = 0
      const refused = await c.run(['reconcile', file, ...via(), flag, where])
      expect(refused.code, `${flag} ${where}`).toBe(2)
      expect(refused.stderr).toContain(says)
      expect(proxy.received).toEqual([])
    }
  })

  it('--json: one document at the end, the summary and every difference', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${n.A},1250,success\n${n.B},900,success\nP-NOT-THERE,5,fail\n`)
    const {code, body} = await c.json(['reconcile', file, ...via()])
    expect(code).toBe(5)
    expect(body).toMatchObject({ok: false, exitCode: 5, warnings: [], data: {compared: 3, matched: {rows: 1, cents: 1250}, notCompared: 0}})
    expect(body.data.classes['amount differs']).toEqual({rows: 1, ledgerCents: 900, platformCents: 800})
    expect(body.data.classes['missing on platform']).toEqual({rows: 1, ledgerCents: 5, platformCents: 0})
    expect(body.data.differences.map((d: {line: number; difference: string}) => [d.line, d.difference]).sort()).toEqual([[3, 'amount differs'], [4, 'missing on platform']])
  })
})

describe('reconcile: earlier runs', () => {
  it('--resume of a finished run asks nothing and reports it again from the journal; without --resume a run starts afresh', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${n.A},1250,success\n${n.B},900,success\n`)
    expect((await c.run(['reconcile', file, ...via()])).code).toBe(5)
    expect(statSync(`${file}.reconcile-journal`).mode & 0o777).toBe(0o600)
    proxy.received.length = 0
    const out = join(c.dir, 'again.csv')
    const again = await c.run(['reconcile', file, ...via(), '--resume', '--out', out])
    expect(again.code).toBe(5)
    expect(asked()).toEqual([])
    expect(again.stdout).toBe('')
    expect(again.stderr).toContain('2 of 2 rows compared (2 by an earlier run), 1 matched, 1 differ')
    expect(readFileSync(out, 'utf8')).toContain(`3,pay,${n.B},`)
    const afresh = await c.run(['reconcile', file, ...via()])
    expect(afresh.code).toBe(5)
    expect(asked()).toHaveLength(2)
    expect(differences(afresh.stdout).map((d) => d.number)).toEqual([n.B])
  })

  it('a --journal that is not a reconciliation\'s is left as it is (exit 2)', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${n.A},1250,success\n`)
    const other = join(c.dir, 'payouts.csv.journal')
    const text = `${JSON.stringify({type: 'start', fileSha256: 'ab', rows: 1, baseUrl: 'http://x', at: new Date().toISOString()})}\n`
    writeFileSync(other, text)
    const run = await c.run(['reconcile', file, ...via(), '--journal', other])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`${other} is not a reconciliation's journal: it is left as it is; give another --journal`)
    expect(readFileSync(other, 'utf8')).toBe(text)
    expect(proxy.received).toEqual([])
    // a user's own files given as the journal: a CSV (no JSON line in it), another tool's JSON lines
    for (const [name, content] of [
      ['important.csv', 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088,100\n'],
      ['events.jsonl', '{"event":"paid","order":"P1"}\n{"event":"refund","order":"P1"}\n'],
    ]) {
      const mine = join(c.dir, name)
      writeFileSync(mine, content)
      const refused = await c.run(['reconcile', file, ...via(), '--journal', mine])
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain(`${mine} is not a reconciliation's journal: it is left as it is; give another --journal`)
      expect(readFileSync(mine, 'utf8')).toBe(content)
    }
    expect(proxy.received).toEqual([])
  })

  it('while a run holds the journal a second is refused; SIGTERM ends the first with 143 and the summary so far; --resume finishes', async () => {
    const file = ledger(`bizOrderNo,amount,status\n${Array.from({length: 60}, (_, i) => `P-SLOW-${i},100,success`).join('\n')}\n`)
    const journal = `${file}.reconcile-journal`
    proxy.delayMs = 100
    const child = spawn(process.execPath, [BIN, 'reconcile', file, ...via(), '--concurrency', '2'], {env: c.env, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await waitFor(() => existsSync(journal) && readFileSync(journal, 'utf8').split('\n').length > 4, 30_000)
    const second = await c.run(['reconcile', file, ...via()])
    expect(second.code).toBe(2)
    expect(second.stderr).toContain(`${journal} is in use by another unipay process: pid ${child.pid}`)
    child.kill('SIGTERM')
    expect(await exited).toBe(143)
    expect(stderr).toContain('SIGTERM: no more rows are asked; finishing the rows in flight...')
    const compared = Number(/: (\d+) of 60 rows compared/.exec(stderr)?.[1])
    expect(compared).toBeGreaterThan(0)
    expect(compared).toBeLessThan(60)
    expect(stderr).toContain(`interrupted by SIGTERM: ${60 - compared} rows not compared; go on with: unipay reconcile`)
    proxy.delayMs = 0
    const resumed = await c.run(['reconcile', file, ...via(), '--resume'])
    expect(resumed.code).toBe(5)
    expect(resumed.stderr).toContain(`60 of 60 rows compared (${compared} by an earlier run)`)
  })
})
