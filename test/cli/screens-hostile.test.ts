// Other people's bytes on screen (issue 24, point 5): a forged callback shown by `listen` on a
// terminal and piped, a forged request in `sandbox logs` and in the foreground request log.
// Each carries the sequences an attacker would use, and each must come out inert.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {startListen} from '../helpers/listen.js'
import {terminal} from '../helpers/pty.js'
import {waitFor} from '../helpers/sandbox.js'

// retitle the window, clear it, paint green, an 8-bit CSI, a C1 OSC, a right-to-left override
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u001b[32m\u009b2J\u009d0;t\u0007\u202e'
// eslint-disable-next-line no-control-regex -- what must never reach a terminal from outside
const LIVE = /[\u001b\u0007\u009b\u009d\u202e]/
// what a forger posts to a notifyUrl: an unsigned system callback, every shown value hostile
const FORGED = JSON.stringify({
  event: `pay.success${HOSTILE}`,
  data: {orderNo: `DP1${HOSTILE}`, bizOrderNo: 'P1\n03:00:00 system   pay.success      success  yes', status: `success${HOSTILE}`, amount: '100'},
  sign: 'Zm9yZ2Vk',
})

let c: Cli
let sandboxUrl = ''
beforeAll(async () => {
  c = cli()
  sandboxUrl = (await c.json(['sandbox', 'start'])).body.data.url
})
afterAll(async () => {
  await c.cleanup()
})

const post = (url: string, body: string) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'}, body})

/** A request as a forger sends it: a hostile merchant number (the log shows it). */
const forgedRequest = (base: string) => post(`${base}/unipay/pay`, JSON.stringify({mchNo: `M1${HOSTILE}`, title: `T${HOSTILE}`, amount: 1}))

describe('listen', () => {
  it('on a terminal: a forged callback is shown inert, on one row, as not verified', async () => {
    const t = terminal(['listen', '--port', '0', '--print-body'], {env: c.env, columns: 160})
    try {
      await t.waitFor(/listening on (http:\S+)/)
      const url = /listening on (http:\S+)/.exec(t.output())![1]
      expect((await post(url, FORGED)).status).toBe(400)
      await t.waitFor(/NO +400/)
      const shown = t.output().slice(t.output().indexOf('GMT+8'))
      expect(shown).not.toMatch(LIVE)
      expect(shown).toContain('pay.success\\u001b]0;pwned')
      // the forged line break is not a row of its own
      expect(shown).not.toMatch(/^03:00:00 system/m)
    } finally {
      t.type('\u0003')
      await t.exited
    }
  })

  it('on a terminal: callbacks with a megabyte of digits as their amount are answered at once, and it goes on serving', async () => {
    // as a forger posts it: the amount a string of a million digits (cents as yuan was BigInt, quadratic in them)
    const huge = JSON.stringify({event: 'pay.success', data: {orderNo: 'DP1', status: 'success', amount: '1'.repeat(1_000_000)}, sign: 'Zm9yZ2Vk'})
    const t = terminal(['listen', '--port', '0'], {env: c.env, columns: 160})
    try {
      await t.waitFor(/listening on (http:\S+)/)
      const url = /listening on (http:\S+)/.exec(t.output())![1]
      for (let i = 0; i < 60; i++) expect((await post(url, huge)).status).toBe(400)
      expect((await c.run(['sandbox', 'trigger', 'pay.success', '--notify-url', url])).code).toBe(0)
      await t.waitFor(/pay\.success +success +\d+ \(¥[\d.]+\) +yes/)
      const rows = t.output().slice(t.output().indexOf('GMT+8')).split('\n').filter(Boolean)
      // shown as given, cut to its column's share of the row
      expect(rows.filter((row) => row.includes(`${'1'.repeat(39)}… NO`))).toHaveLength(60)
      for (const row of rows) expect(row.length, row.slice(0, 200)).toBeLessThanOrEqual(160)
    } finally {
      t.type('\u0003')
      await t.exited
    }
  })

  it('piped: the JSON line carries no live control character either', async () => {
    const l = await startListen(c, ['--port', '0', '--print-body'])
    try {
      expect((await post(l.url, FORGED)).status).toBe(400)
      const line = await waitFor(() => l.lines[0])
      expect(line).not.toMatch(LIVE)
      expect(JSON.parse(line)).toMatchObject({event: `pay.success${HOSTILE}`, verified: false, rawBody: FORGED})
    } finally {
      await l.stop('SIGINT')
    }
  })

  for (const columns of [80, 100, 160]) {
    it(`a verified callback's row fits ${columns} columns (numbers under their column, never wrapped by the terminal)`, async () => {
      const t = terminal(['listen', '--port', '0'], {env: c.env, columns})
      try {
        await t.waitFor(/listening on (http:\S+)/)
        const url = /listening on (http:\S+)/.exec(t.output())![1]
        expect((await c.run(['sandbox', 'trigger', 'refund.success', '--notify-url', url])).code).toBe(0)
        await t.waitFor(/refund\.success.*yes/)
        await t.waitFor(/refundNo=RF/)
        const rows = t.output().slice(t.output().indexOf('GMT+8')).split('\n').filter(Boolean)
        for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(columns)
        // every number whole (on the row, under NUMBERS, or below the row when the room is too small)
        expect(rows.join('\n')).toMatch(/(^| )refundNo=RF\d{14}\S*/m)
        expect(rows.join('\n')).toMatch(/(^| )bizRefundNo=\S+/m)
      } finally {
        t.type('\u0003')
        await t.exited
      }
    })
  }
})

describe('the sandbox request log', () => {
  it('sandbox logs shows a forged request inert, times in GMT+8', async () => {
    await forgedRequest(sandboxUrl)
    const logs = await c.run(['sandbox', 'logs', '--failed'])
    expect(logs.code).toBe(0)
    const line = logs.stdout.split('\n').find((l) => l.includes('M1\\u001b'))
    expect(line).toBeDefined()
    expect(logs.stdout).not.toMatch(LIVE)
    expect(line).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} {2}POST /)
    expect(line).toContain('M1\\u001b]0;pwned\\u0007')
    // --json keeps the sandbox's own record of the time
    const json = await c.json(['sandbox', 'logs', '--failed'])
    expect(json.body.data.at(-1).time).toMatch(/T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  it('the foreground request log shows it inert too', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'unipay-fg-'))
    const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
    const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dataDir], {env: c.env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      const url = (await waitFor(() => /listening on (http:\/\/\S+)/.exec(out) ?? undefined))[1]
      await forgedRequest(url)
      await waitFor(() => out.includes('POST /unipay/pay  M1\\u001b'))
      expect(out).not.toMatch(LIVE)
      expect(out).toContain('M1\\u001b]0;pwned\\u0007')
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      child.kill('SIGKILL')
      // the sandbox is the CLI's child: when the test failed before SIGTERM, stop it by its pid
      try {
        process.kill(JSON.parse(readFileSync(join(dataDir, 'sandbox', 'runtime.json'), 'utf8')).pid, 'SIGKILL')
      } catch {
        // stopped already (runtime.json removed)
      }
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})
