// What support staff see of `unipay lookup`: one screen at 80 columns through a pseudo-terminal,
// the warning for what it could not fetch (refunds without a session), the Markdown report for a
// ticket (0600, no secret, hostile values kept from becoming links or HTML), and the story read
// exactly: a trade number another one contains is not the same order's.
import {readFileSync, statSync, writeFileSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {marked} from 'marked'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {GatewayPrepayResult} from '../../src/commands/gateway/prepay.js'
import type {LookupResult} from '../../src/commands/lookup.js'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {RefundCreateResult} from '../../src/commands/refund/create.js'
import type {SandboxCallbacksListResult} from '../../src/commands/sandbox/callbacks/list.js'
import type {SandboxStatusResult} from '../../src/commands/sandbox/status.js'
import {cli, type Cli} from '../helpers/cli.js'
import {onTerminal} from '../helpers/pty.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'

let c: Cli
let receiver: Receiver
beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  receiver = await callbackReceiver()
})
afterAll(async () => {
  await receiver.close()
  await c.cleanup()
})

// Columns a line takes on screen (Chinese characters take two).
const width = (line: string) => [...line].reduce((n, ch) => n + (/[\u3000-\u9fff\uff00-\uff60]/.test(ch) ? 2 : 1), 0)

async function paidWithCallback(cli: Cli, title: string, ...extra: string[]) {
  const order = await cli.result<PayCreateResult>(['pay', 'create', '--title', title, '--amount', '1250', '--auth-code', '134567890123456789', '--notify-url', receiver.url, ...extra])
  await waitFor(async () => (await cli.result<SandboxCallbacksListResult>(['sandbox', 'callbacks', 'list'])).some((n) => n.state === 'delivered' && JSON.parse(n.body).data.orderNo === order.orderNo))
  return order
}

describe('lookup on a terminal', () => {
  it('fits one screen of 80 columns: the match, each record with its state, callbacks, a GMT+8 timeline; the refunds it cannot get are a warning', async () => {
    const order = await paidWithCallback(c, '咖啡 Coffee')
    const {output, code} = await onTerminal(['lookup', order.tradeNo], c.env, 80)
    expect(code).toBe(0)
    const lines = output.split('\n')
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(80)
    expect(lines.length).toBeLessThanOrEqual(50)
    expect(output).toContain(`${order.tradeNo} is the tradeNo of payment order ${order.orderNo}`)
    expect(output).toContain(`Payment order ${order.orderNo} · ✓ verified`)
    expect(output).toMatch(/^status +success \(succeeded\)$/m)
    expect(output).toMatch(/^amount +1250 \(¥12\.50\)$/m)
    expect(output).toMatch(/^payTime +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(GMT\+8\)$/m)
    expect(output).toMatch(/^title +咖啡 Coffee$/m)
    expect(output).toContain('Callbacks: 1 · unsigned (from the local sandbox, which signs nothing about them)')
    expect(output).toMatch(/pay\.success +delivered/)
    expect(output).toMatch(/^time \(GMT\+8\) +event$/m)
    expect(output).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}  payment ${order.orderNo} paid, ¥12\\.50`, 'm'))
    expect(output).toContain('warning: refunds not shown, no session: unipay mch login --account ACCOUNT')
    // the same warning in the one JSON document, which holds every record as the platform sent it
    const json = await c.json(['lookup', order.tradeNo])
    expect(json.body).toMatchObject({ok: true, exitCode: 0, warnings: ['refunds not shown, no session: unipay mch login --account ACCOUNT']})
    expect(json.body.data.records.map((r: {kind: string; state: string}) => [r.kind, r.state])).toEqual([
      ['payment', 'verified'],
      ['callback', 'unsigned'],
    ])
    expect(json.body.data.records[0].data).toEqual((await c.json(['query', 'pay', '--order-no', order.orderNo])).body.data)
  })
})

describe('lookup --report FILE', () => {
  it('writes Markdown for a ticket, 0600, with no key, token or password, and values that cannot become links or HTML', async () => {
    expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
    expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
    const title = '[click](http://evil.example) <img src=x onerror=alert(1)> ``x`` **b**'
    const attach = '<script>alert(1)</script> https://evil.example/a www.evil.example | a | b | # heading'
    const order = await paidWithCallback(c, title, '--attach', attach)
    const refund = await c.result<RefundCreateResult>(['refund', 'create', '--trade-no', order.tradeNo, '--amount', '250', '--reason', '<b>why</b>'])
    const file = join(c.dir, 'tickets', 'ticket-4711.md')
    mkdirSync(join(c.dir, 'tickets'))
    const ran = await c.run(['lookup', order.bizOrderNo, '--report', file])
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toContain(`report written to ${file}`)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const report = readFileSync(file, 'utf8')
    const status = await c.result<SandboxStatusResult>(['sandbox', 'status'])
    expect(report).toContain(`# unipay lookup \`${order.bizOrderNo}\``)
    expect(report).toMatch(/^- asked: `\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}` \(GMT\+8\)$/m)
    expect(report).toContain(`- profile: \`local\` at \`${status.running ? status.url : ''}\`, merchant \`M1000000001\``)
    expect(report).toContain(`## Payment order \`${order.orderNo}\``)
    expect(report).toContain('- answer: verified (signature checked with the platform key)')
    expect(report).toContain(`## Refund \`${refund.refundNo}\``)
    expect(report).toContain('- answer: unsigned (this source signs nothing)')
    expect(report).toContain('## Timeline (GMT+8)')
    // no secret: the merchant's private key, the MD5 key, the session token, the password
    const privateKey = readFileSync(status.running ? status.privateKeyFile : '', 'utf8').split('\n').filter((l) => l && !l.startsWith('-----'))
    const md5Key = readFileSync(status.running && status.md5KeyFile ? status.md5KeyFile : '', 'utf8').trim()
    const token = JSON.parse(readFileSync(join(c.dir, 'config', 'unipay', 'config.json'), 'utf8')).profiles.local.token as string
    expect(token.length).toBeGreaterThan(10)
    for (const secret of [...privateKey, md5Key, token, 'pa55word']) expect(report).not.toContain(secret)
    // rendered as a ticket system would (GitHub-flavoured Markdown: autolinks on), nothing outside came alive
    const html = await marked.parse(report)
    expect(html).not.toMatch(/<a |<img|<script|<b>|<strong>|<h1>[^<]*heading/)
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(html).toContain('<code>&lt;script&gt;alert(1)&lt;/script&gt; https://evil.example/a www.evil.example | a | b | # heading</code>')
    expect((html.match(/<h1>/g) ?? []).length).toBe(1)
  })

  it('is checked before anything is asked: a folder that is not there, or a folder given as the file (exit 2)', async () => {
    for (const [file, message] of [
      [join(c.dir, 'no-such-folder', 'ticket.md'), 'no such file'],
      [c.dir, 'is a folder'],
    ]) {
      const ran = await c.run(['lookup', 'P20261127093652AFC15997', '--report', file, '--debug'])
      expect(ran.code, file).toBe(2)
      expect(ran.stderr).toContain(message)
      expect(ran.stderr).not.toMatch(/\[debug\] (POST|GET) /)
    }
    // a file there already is replaced, 0600 whatever it was
    const existing = join(c.dir, 'old.md')
    writeFileSync(existing, 'old', {mode: 0o644})
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Again', '--amount', '5'])
    expect((await c.run(['lookup', order.orderNo, '--report', existing])).code).toBe(0)
    expect(statSync(existing).mode & 0o777).toBe(0o600)
    expect(readFileSync(existing, 'utf8')).toContain(order.orderNo)
  })

  it('that the disk refuses (/dev/full, a device written in place) is exit 74: on a screen after the story, with --json one document, the error', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Full', '--amount', '5'])
    const shown = await c.run(['lookup', order.orderNo, '--report', '/dev/full'])
    expect(shown.code).toBe(74)
    expect(shown.stdout).toContain(order.orderNo)
    expect(shown.stderr).toContain('/dev/full could not be written (no space left on the device): --report holds nothing; the story is above')
    const json = await c.run(['lookup', order.orderNo, '--report', '/dev/full', '--json'])
    expect(json.code).toBe(74)
    const document = JSON.parse(json.stdout) as {ok: boolean; error: {kind: string; exitCode: number}}
    expect(document).toMatchObject({ok: false, error: {kind: 'local-write', exitCode: 74}})
  })
})

describe('read exactly', () => {
  it('a trade number that another contains (T... inside GT...): the refund list\'s substring match is not the story', async () => {
    // a fresh sandbox: its first gateway order and its first payment made within one second share a
    // stamp and a sequence number, so the payment's T... is inside the gateway trade's GT...
    for (let attempt = 1; ; attempt++) {
      const fresh = cli({sandbox: 'in-process'})
      try {
        const gateway = await fresh.result<GatewayPrepayResult>(['gateway', 'prepay', '--type', 'cashier', '--title', 'G', '--amount', '300'])
        const order = await fresh.result<PayCreateResult>(['pay', 'create', '--title', 'P', '--amount', '300', '--auth-code', '134567890123456789'])
        if (`GT${gateway.orderNo.slice(2)}` !== `G${order.tradeNo}`) {
          if (attempt < 3) continue
          throw new Error('three sandboxes in a row made their first orders across a second')
        }
        expect((await fresh.run(['sandbox', 'pay', gateway.orderNo, '--method', 'walletA_h5'])).code).toBe(0)
        const mine = await fresh.result<RefundCreateResult>(['refund', 'create', '--trade-no', order.tradeNo, '--amount', '10'])
        await fresh.result<RefundCreateResult>(['refund', 'create', '--trade-no', `G${order.tradeNo}`, '--amount', '20'])
        expect((await fresh.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
        expect((await fresh.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
        // the management API matches by substring: both refunds
        expect((await fresh.json(['refunds', 'list', '--trade-no', order.tradeNo])).body.data).toHaveLength(2)
        const story = await fresh.result<LookupResult>(['lookup', order.tradeNo])
        expect(story.records.filter((record) => record.kind === 'refund').map((record) => record.data.refundNo)).toEqual([mine.refundNo])
        return
      } finally {
        await fresh.cleanup()
      }
    }
  })
})

describe('a callback the sandbox gave up on', () => {
  it('is a next step: the resend, which runs as given', async () => {
    const own = cli({sandbox: 'in-process'})
    const refusing = await callbackReceiver()
    try {
      refusing.answers.push(...Array.from({length: 40}, () => ({status: 500, body: 'busy'})))
      const order = await own.result<PayCreateResult>(['pay', 'create', '--title', 'Refused', '--amount', '5', '--auth-code', '134567890123456789', '--notify-url', refusing.url])
      const state = async () => (await own.result<SandboxCallbacksListResult>(['sandbox', 'callbacks', 'list']))[0]
      await waitFor(async () => (await state())?.attempts.length === 1)
      // each move of the clock makes the next retry due (16 retries over about 30 hours)
      while ((await state()).state !== 'given_up') {
        const attempts = (await state()).attempts.length
        expect(attempts).toBeLessThan(20)
        expect((await own.run(['sandbox', 'clock', 'advance', '7h'])).code).toBe(0)
        await waitFor(async () => (await state()).attempts.length > attempts)
      }
      const story = await own.result<LookupResult>(['lookup', order.tradeNo])
      const callback = await state()
      expect(story.nextSteps).toEqual([{why: `the sandbox gave up on callback pay.success to ${refusing.url}`, command: `unipay sandbox callbacks resend ${callback.id}`}])
      expect(story.timeline.at(-1)?.event).toBe(`callback pay.success given up after ${callback.attempts.length} attempts`)
      refusing.answers.length = 0
      const resent = await own.run(story.nextSteps[0].command!.split(' ').slice(1))
      expect(resent.code, resent.stderr).toBe(0)
      expect((await state()).state).toBe('delivered')
    } finally {
      await refusing.close()
      await own.cleanup()
    }
  })
})
