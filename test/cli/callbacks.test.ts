import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {Notification} from '../../src/protocol/notifications.js'
import {cli, type Cli} from '../helpers/cli.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'

let c: Cli
const cleanups: (() => Promise<unknown>)[] = []
beforeAll(() => {
  c = cli()
})
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})
afterAll(async () => {
  await c.cleanup()
})

/** (Re)starts the sandbox with waits `scale` times faster. */
async function sandboxAt(scale: number): Promise<void> {
  await c.run(['sandbox', 'stop'])
  expect((await c.run(['sandbox', 'start', '--time-scale', String(scale)])).code).toBe(0)
}

async function receiver(): Promise<Receiver> {
  const r = await callbackReceiver()
  cleanups.push(() => r.close())
  return r
}

/** A barcode payment succeeds at once, so pay.success goes out right away. */
async function paidOrder(notifyUrl: string, bizOrderNo: string): Promise<void> {
  const created = await c.json(['pay', 'create', '--title', 'x', '--amount', '1', '--auth-code', '134567890123456789', '--biz-order-no', bizOrderNo, '--notify-url', notifyUrl])
  expect(created.body.data.status).toBe('success')
}

async function callbacks(): Promise<Notification[]> {
  const list = await c.json(['sandbox', 'callbacks', 'list'])
  expect(list.code).toBe(0)
  return list.body.data
}

async function callbackFor(bizOrderNo: string, done: (n: Notification) => boolean, timeoutMs = 20_000): Promise<Notification> {
  return waitFor(async () => (await callbacks()).find((n) => JSON.parse(n.body).data.bizOrderNo === bizOrderNo && done(n)), timeoutMs)
}

function sandboxPid(): Promise<number> {
  return c.json(['sandbox', 'status']).then((s) => s.body.data.pid)
}

async function kill(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL')
  await waitFor(() => {
    try {
      process.kill(pid, 0)
      return false
    } catch {
      return true
    }
  })
}

describe('sandbox callbacks', () => {
  it('retries on the schedule: a receiver failing three attempts gets the fourth, and the log shows all four', async () => {
    await sandboxAt(1000)
    const r = await receiver()
    r.answers.push({status: 500, body: 'oops'}, {status: 503, body: 'busy'}, {status: 200, body: 'not yet'})
    await paidOrder(r.url, 'RETRY1')
    const delivered = await callbackFor('RETRY1', (n) => n.state === 'delivered')
    expect(delivered).toMatchObject({event: 'pay.success', url: r.url})
    expect(delivered.nextAttemptAt).toBeUndefined()
    expect(delivered.attempts.map((a) => [a.httpStatus, a.bodyExcerpt, a.acknowledged])).toEqual([
      [500, 'oops', false],
      [503, 'busy', false],
      [200, 'not yet', false],
      [200, 'SUCCESS', true],
    ])
    const times = delivered.attempts.map((a) => Date.parse(a.at))
    // 15 s, 15 s and 30 s at 1000x: at least 15, 15 and 30 ms apart.
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(15)
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(15)
    expect(times[3] - times[2]).toBeGreaterThanOrEqual(30)
    expect(r.received).toHaveLength(4)
    expect(new Set(r.received.map((x) => x.body))).toEqual(new Set([delivered.body]))

    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout.split('\n')[0]).toBe('id\tevent\turl\tstate\tattempts\tlast answer\tnext attempt')
    expect(piped.stdout).toContain(`${delivered.id}\tpay.success\t${r.url}\tdelivered\t4\tacknowledged 200\t-`)
  })

  it('shows a pending callback with its last answer and next attempt', async () => {
    await sandboxAt(1)
    const r = await receiver()
    r.answers.push({status: 404, body: 'no route'})
    await paidOrder(r.url, 'PENDING1')
    const pending = await callbackFor('PENDING1', (n) => n.attempts.length === 1)
    expect(pending).toMatchObject({state: 'pending', attempts: [{httpStatus: 404, acknowledged: false}]})
    // The first retry is due 15 s after the attempt.
    expect(pending.nextAttemptAt! - Date.parse(pending.attempts[0].at)).toBeGreaterThanOrEqual(15_000)
    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout).toMatch(new RegExp(`^${pending.id}\\tpay\\.success\\t\\S+\\tpending\\t1\\trefused: HTTP 404 "no route"\\t\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$`, 'm'))
  })

  it('shows a merchant\'s 200 answer that is not SUCCESS as refused, not as a status', async () => {
    await sandboxAt(1)
    const r = await receiver()
    r.answers.push({status: 200, body: 'fail'})
    await paidOrder(r.url, 'REFUSED1')
    const refused = await callbackFor('REFUSED1', (n) => n.attempts.length === 1)
    expect(refused).toMatchObject({state: 'pending', attempts: [{httpStatus: 200, bodyExcerpt: 'fail', acknowledged: false}]})
    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout).toMatch(new RegExp(`^${refused.id}\\tpay\\.success\\t\\S+\\tpending\\t1\\trefused: HTTP 200 "fail"\\t`, 'm'))
  })

  it('resends by id prefix, continuing the attempt log; an unknown id is bad input', async () => {
    // real time: the refused resend's retry is due 15 s later, not raced by a sped-up clock
    await sandboxAt(1)
    const r = await receiver()
    await paidOrder(r.url, 'RESEND1')
    const delivered = await callbackFor('RESEND1', (n) => n.state === 'delivered')
    r.answers.push({status: 503, body: 'busy'})
    // the answer is the attempt just made, not a snapshot from before it
    const resent = await c.json(['sandbox', 'callbacks', 'resend', delivered.id.slice(0, 8)])
    expect(resent.code).toBe(0)
    expect(resent.body.data).toMatchObject({id: delivered.id, state: 'pending', attempts: [{acknowledged: true}, {httpStatus: 503, bodyExcerpt: 'busy', acknowledged: false}]})
    expect(r.received).toHaveLength(2)
    const human = await c.run(['sandbox', 'callbacks', 'resend', delivered.id.slice(0, 8)])
    expect(human.stdout).toMatch(/last answer\s+acknowledged 200/)

    const unknown = await c.run(['sandbox', 'callbacks', 'resend', 'nope'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('no callback nope; `unipay sandbox callbacks list` shows them')
  })
})

describe('a sandbox restart mid-schedule', () => {
  it('killed between attempts: the next command restarts it and the retry is delivered, nothing acknowledged before', async () => {
    // At 5x the first retry is due 3 s after the first attempt: time to kill the sandbox in between.
    await sandboxAt(5)
    const pid = await sandboxPid()
    const r = await receiver()
    // Fails until the sandbox is dead, however many attempts a slow machine lets through.
    for (let i = 0; i < 10; i++) r.answers.push({status: 500, body: 'down'})
    await paidOrder(r.url, 'KILL1')
    const failed = await callbackFor('KILL1', (n) => n.attempts.length >= 1)
    expect(failed.state).toBe('pending')
    await kill(pid)
    r.answers.length = 0

    const listed = await c.run(['sandbox', 'callbacks', 'list'])
    expect(listed.stderr).toMatch(/starting the local sandbox in the background/)
    expect(await sandboxPid()).not.toBe(pid)
    const delivered = await callbackFor('KILL1', (n) => n.state === 'delivered')
    expect(delivered.attempts.length).toBeGreaterThanOrEqual(2)
    expect(delivered.attempts.at(-1)).toMatchObject({httpStatus: 200, acknowledged: true})
    // Before the kill: failures only (an attempt under way at the kill is logged as interrupted).
    expect(delivered.attempts.slice(0, -1).every((a) => !a.acknowledged && (a.httpStatus === 500 || a.error?.startsWith('interrupted')))).toBe(true)
    expect(r.received).toHaveLength(delivered.attempts.length)
  })

  it('killed during an attempt: the attempt is logged as interrupted, never as delivered, and sent again after the restart', async () => {
    await sandboxAt(1000)
    // Holds the first request unanswered until the test is over: the sandbox dies waiting.
    const held: ServerResponse[] = []
    let received = 0
    const server = createServer((req, res) => {
      req.resume()
      received++
      if (held.length === 0) held.push(res)
      else res.end('SUCCESS')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    cleanups.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`
    await paidOrder(url, 'KILL2')
    await waitFor(() => held.length === 1)
    const before = (await callbacks()).find((n) => JSON.parse(n.body).data.bizOrderNo === 'KILL2')!
    expect(before).toMatchObject({state: 'pending', attempts: [], attemptStartedAt: expect.any(String)})
    await kill(await sandboxPid())

    const delivered = await callbackFor('KILL2', (n) => n.state === 'delivered')
    expect(delivered.attempts).toMatchObject([
      {at: before.attemptStartedAt, acknowledged: false, error: 'interrupted: the sandbox stopped before the answer'},
      {httpStatus: 200, acknowledged: true},
    ])
    expect(delivered).not.toHaveProperty('attemptStartedAt')
    expect(received).toBe(2)
  })
})
