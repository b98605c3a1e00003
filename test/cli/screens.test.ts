// What support staff see at a terminal: tables that fit 80, 100 and 160 columns, filters in
// the words the screens show, paged output that says how to get more.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {onTerminal} from '../helpers/pty.js'

let c: Cli
// every field of the management refund record (protocol notes §6)
const COLUMNS = [
  'id', 'mchNo', 'appId', 'refundNo', 'bizRefundNo', 'tradeNo', 'bizOrderNo', 'outOrderNo', 'outRefundNo', 'title', 'channel', 'product',
  'amount', 'orderAmount', 'currency', 'reason', 'status', 'finishTime', 'errorMsg', 'notifyUrl', 'attach', 'clientIp', 'storeNo', 'createTime',
]
const refunds: {bizRefundNo: string; bizOrderNo: string; status: string}[] = []

// Columns a line takes on screen (Chinese characters take two).
const width = (line: string) => [...line].reduce((n, ch) => n + (/[\u3000-\u9fff\uff00-\uff60]/.test(ch) ? 2 : 1), 0)

beforeAll(async () => {
  c = cli()
  await startPausedSandbox(c)
  for (const [i, fail] of [[1, false], [2, true], [3, false]] as const) {
    const order = await c.json(['pay', 'create', '--title', `退款测试订单${i}`, '--amount', '40', '--auth-code', '134567890123456789'])
    const refund = await c.json(['refund', 'create', '--biz-order-no', order.body.data.bizOrderNo, '--amount', '4', ...(fail ? ['--reason', 'test:slow'] : [])])
    expect(refund.code).toBe(0)
    const bizRefundNo: string = refund.body.data.bizRefundNo
    if (fail) expect((await c.run(['sandbox', 'refund', 'settle', bizRefundNo, '--fail'])).code).toBe(0)
    refunds.push({bizRefundNo, bizOrderNo: order.body.data.bizOrderNo, status: fail ? 'fail' : 'success'})
  }
  // the others are settled by the channel a second later
  expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
  expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
})
afterAll(async () => {
  await c.cleanup()
})

describe('sandbox callbacks list on a terminal', () => {
  it('keeps the receiver\'s host and port whole at 80 columns (the URL without http://)', async () => {
    const order = await c.json(['pay', 'create', '--title', 'Callback', '--amount', '40', '--notify-url', 'http://127.0.0.1:8731/notify'])
    expect((await c.run(['sandbox', 'pay', order.body.data.orderNo])).code).toBe(0)
    const {output, code} = await onTerminal(['sandbox', 'callbacks', 'list'], c.env, 80)
    expect(code).toBe(0)
    for (const line of output.split('\n')) expect(width(line), line).toBeLessThanOrEqual(80)
    expect(output).toMatch(/pay\.success +127\.0\.0\.1:8731\/notify /)
  })
})

describe('refund lists on a terminal', () => {
  for (const columns of [80, 100, 160]) {
    it(`fit ${columns} columns, amounts and refund and order numbers whole`, async () => {
      const {output, code} = await onTerminal(['refunds', 'list', '--size', '100', '--status', 'fail'], c.env, columns)
      expect(code).toBe(0)
      const lines = output.split('\n').filter(Boolean)
      for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(columns)
      const failed = refunds.find((r) => r.status === 'fail')!
      const row = lines.find((line) => line.includes(failed.bizRefundNo))
      // which order it refunds: the number support staff are asked about
      expect(row).toContain(failed.bizOrderNo)
      expect(row).toMatch(/4 \(¥0\.04\) .*failed/)
      expect(output).toMatch(/left out to fit: .* \(--wide, or --columns\)/)
      // why it failed, whole, never cut: wrapped under its header, or at 80 columns under its row
      const from = lines.indexOf(row!)
      const after = lines.slice(from + 1)
      const continued = after.slice(0, Math.max(0, after.findIndex((l) => !/^ {4,}\S/.test(l))))
      expect([row, ...continued.map((line) => line.trim())].join(' ')).toContain(columns === 80 ? 'errorMsg: the channel refused the refund (sandbox)' : 'the channel refused the refund (sandbox)')
      if (columns > 80) expect(lines.some((line) => /^(?!left out).*bizRefundNo.*errorMsg/.test(line))).toBe(true)
      // a column of times says its zone once, in its header
      if (columns === 160) expect(lines.find((line) => /^(?!left out).*bizRefundNo/.test(line))).toMatch(/createTime \(GMT\+8\)/)
      expect(output).not.toContain('…')
    })
  }

  it('a refund found in the list opens by the number on screen (bizRefundNo or refundNo), not only by its id', async () => {
    const failed = refunds.find((r) => r.status === 'fail')!
    const {output, code} = await onTerminal(['refunds', 'get', failed.bizRefundNo], c.env, 80)
    expect(code).toBe(0)
    expect(output).toMatch(/^errorMsg +the channel refused the refund \(sandbox\)$/m)
    expect(output).toMatch(/^status +fail \(failed\)$/m)
    // one time format on screen: the management API's ISO time shown as GMT+8 yyyy-MM-dd HH:mm:ss, saying so
    expect(output).toMatch(/^createTime +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(GMT\+8\)$/m)
    const byNo = await c.json(['refunds', 'get', failed.bizRefundNo])
    expect(byNo.body.data.createTime).toMatch(/T.*\+08:00$/)
    expect((await c.json(['refunds', 'get', byNo.body.data.refundNo])).body.data).toEqual(byNo.body.data)
    expect((await c.json(['refunds', 'get', String(byNo.body.data.id)])).body.data).toEqual(byNo.body.data)
    const none = await c.run(['refunds', 'get', 'RF-NO-SUCH'])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('no refund has the refundNo or bizRefundNo RF-NO-SUCH')
  })

  it('shows the chosen columns, or every column with --wide', async () => {
    const chosen = await onTerminal(['refunds', 'list', '--columns', 'bizRefundNo,status'], c.env, 80)
    expect(chosen.output.split('\n')[0]).toMatch(/^bizRefundNo +status$/)
    const wide = await onTerminal(['refunds', 'list', '--wide'], c.env, 80)
    // every column, a column of times saying its zone in its header
    expect(wide.output).toMatch(new RegExp(`^${COLUMNS.map((name) => (name.endsWith('Time') ? `${name} \\(GMT\\+8\\)` : name)).join(' +')}$`, 'm'))
    const reason = await onTerminal(['refunds', 'list', '--columns', 'bizRefundNo,errorMsg,reason', '--status', 'fail'], c.env, 80)
    expect(reason.output).toMatch(/the channel refused the refund \(sandbox\) +test:slow/)
    const bad = await c.run(['refunds', 'list', '--columns', 'amount,stauts'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(`Error: unknown column "stauts"; columns: ${COLUMNS.join(', ')}`)
    const help = await c.run(['refunds', 'list', '--help'])
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`Columns (for --columns): ${COLUMNS.join(', ')}`)
  })

  it('piped: every column, raw values (the word, the cents, the GMT+8 time), for cut and awk', async () => {
    const piped = await c.run(['refunds', 'list', '--status', 'fail'])
    const [head, row] = piped.stdout.trim().split('\n').map((line) => line.split('\t'))
    expect(head).toEqual(COLUMNS)
    const field = (name: string) => row[head.indexOf(name)]
    expect(field('status')).toBe('fail')
    expect(field('amount')).toBe('4')
    expect(field('orderAmount')).toBe('40')
    expect(field('errorMsg')).toBe('the channel refused the refund (sandbox)')
    expect(field('createTime')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  })
})

describe('refund filters', () => {
  it('take the word on screen as well as the code', async () => {
    const byWord = await c.json(['refunds', 'list', '--status', 'failed', '--size', '100'])
    const byCode = await c.json(['refunds', 'list', '--status', 'fail', '--size', '100'])
    expect(byWord.code).toBe(0)
    expect(byWord.body.data.map((r: {bizRefundNo: string}) => r.bizRefundNo)).toEqual([refunds[1].bizRefundNo])
    expect(byWord.body.data).toEqual(byCode.body.data)
    const succeeded = await c.json(['refunds', 'list', '--status', 'Succeeded', '--size', '100'])
    expect(succeeded.body.data).toHaveLength(2)
  })

  it('refuse other values, listing the values (exit 2), and list them in --help', async () => {
    const bad = await c.run(['refunds', 'list', '--status', 'failure'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--status: "failure" is not one of: progress (in progress), success (succeeded), fail (failed), close (closed)')
    const json = await c.json(['refunds', 'list', '--status', 'failure'])
    expect(json.body.error).toMatchObject({kind: 'usage', exitCode: 2, problems: [{flag: '--status'}]})
    const help = await c.run(['refunds', 'list', '--help'])
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('one of: progress (in progress), success (succeeded), fail (failed), close (closed)')
  })
})

describe('paged lists', () => {
  it('say how to get the rest', async () => {
    const first = await c.run(['refunds', 'list', '--size', '1'])
    expect(first.stderr).toContain('1 of 3 refunds: --page 2, or --all')
    const last = await c.run(['refunds', 'list', '--size', '1', '--page', '3'])
    expect(last.stderr).toMatch(/^1 of 3 refunds$/m)
    const limited = await c.run(['refunds', 'list', '--all', '--size', '1', '--limit', '2'])
    expect(limited.stderr).toContain('2 of 3 refunds: stopped at --limit 2; raise it to see more')
    const all = await c.run(['refunds', 'list', '--all'])
    expect(all.stderr).toMatch(/^3 of 3 refunds$/m)
  })

  it('--json keeps the platform\'s page (size and current) beside its total', async () => {
    const second = await c.json(['refunds', 'list', '--size', '1', '--page', '2'])
    expect(second.body).toMatchObject({ok: true, total: 3, size: 1, current: 2})
    expect(second.body.data).toHaveLength(1)
    // every page walked: the numbers of the last page read
    const all = await c.json(['refunds', 'list', '--all', '--size', '2'])
    expect(all.body).toMatchObject({total: 3, size: 2, current: 2})
    expect(all.body.data).toHaveLength(3)
  })
})

describe('records on a terminal', () => {
  it('a gateway order: compact label/value lines within 80 columns, statuses in words', async () => {
    const order = await c.json(['gateway', 'prepay', '--title', '网关收银台测试订单', '--amount', '100', '--type', 'cashier'])
    expect(order.code).toBe(0)
    const {output, code} = await onTerminal(['query', 'gateway', '--order-no', order.body.data.orderNo], c.env, 80)
    expect(code).toBe(0)
    for (const line of output.split('\n')) expect(width(line), line).toBeLessThanOrEqual(80)
    expect(output).toMatch(/^status +wait_pay \(waiting for the payer\)$/m)
    expect(output).toMatch(/^fundStatus +init \(not started\)$/m)
    expect(output).toMatch(/^title {8}网关收银台测试订单$/m)
    expect(output).not.toMatch(/[─│┌]/)
  })
})
