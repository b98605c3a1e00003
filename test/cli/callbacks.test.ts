import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {Notification} from '../../src/protocol/notifications.js'
import {cli, type Cli} from '../helpers/cli.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'

// The sandbox clock stands still here (`sandbox clock pause`): a retry comes only when a test
// moves the clock through its due time, so nothing races the machine's speed.
let c: Cli
const cleanups: (() => Promise<unknown>)[] = []
beforeAll(async () => {
  c = cli()
  expect((await c.run(['sandbox', 'start'])).code).toBe(0)
  expect((await c.json(['sandbox', 'clock', 'pause'])).body.data).toMatchObject({paused: true})
})
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})
afterAll(async () => {
  await c.cleanup()
})

const S = 1000
const M = 60 * S
const H = 60 * M

async function advance(duration: string): Promise<void> {
  const moved = await c.run(['sandbox', 'clock', 'advance', duration])
  expect(moved.code, moved.stderr).toBe(0)
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

/** The callback about an order once `done` holds (its first attempt is made at once, whatever the clock). */
async function callbackFor(bizOrderNo: string, done: (n: Notification) => boolean): Promise<Notification> {
  return waitFor(async () => (await callbacks()).find((n) => JSON.parse(n.body).data.bizOrderNo === bizOrderNo && done(n)))
}

/** Attempt times, in ms after the first. */
const afterFirst = (n: Notification) => n.attempts.map((a) => Date.parse(a.at) - Date.parse(n.attempts[0].at))

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
    const r = await receiver()
    r.answers.push({status: 500, body: 'oops'}, {status: 503, body: 'busy'}, {status: 200, body: 'not yet'})
    await paidOrder(r.url, 'RETRY1')
    await callbackFor('RETRY1', (n) => n.attempts.length === 1)
    // the retries are due 15 s, 15 s and 30 s after each attempt: a minute reaches the fourth
    await advance('1m')
    const delivered = await callbackFor('RETRY1', () => true)
    expect(delivered).toMatchObject({event: 'pay.success', url: r.url, state: 'delivered'})
    expect(delivered.nextAttemptAt).toBeUndefined()
    expect(delivered.attempts.map((a) => [a.httpStatus, a.bodyExcerpt, a.acknowledged])).toEqual([
      [500, 'oops', false],
      [503, 'busy', false],
      [200, 'not yet', false],
      [200, 'SUCCESS', true],
    ])
    expect(afterFirst(delivered)).toEqual([0, 15 * S, 30 * S, M])
    expect(r.received).toHaveLength(4)
    expect(new Set(r.received.map((x) => x.body))).toEqual(new Set([delivered.body]))

    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout.split('\n')[0]).toBe('id\tevent\turl\tstate\tattempts\tlast answer\tnext attempt')
    expect(piped.stdout).toContain(`${delivered.id}\tpay.success\t${r.url}\tdelivered\t4\tacknowledged 200\t-`)
  })

  it('shows a pending callback with its last answer and next attempt', async () => {
    const r = await receiver()
    r.answers.push({status: 404, body: 'no route'})
    await paidOrder(r.url, 'PENDING1')
    const pending = await callbackFor('PENDING1', (n) => n.attempts.length === 1)
    expect(pending).toMatchObject({state: 'pending', attempts: [{httpStatus: 404, acknowledged: false}]})
    // The first retry is due 15 s after the attempt.
    expect(pending.nextAttemptAt! - Date.parse(pending.attempts[0].at)).toBe(15 * S)
    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout).toMatch(new RegExp(`^${pending.id}\\tpay\\.success\\t\\S+\\tpending\\t1\\trefused: HTTP 404 "no route"\\t\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$`, 'm'))
  })

  it('shows a merchant\'s 200 answer that is not SUCCESS as refused, not as a status', async () => {
    const r = await receiver()
    r.answers.push({status: 200, body: 'fail'})
    await paidOrder(r.url, 'REFUSED1')
    const refused = await callbackFor('REFUSED1', (n) => n.attempts.length === 1)
    expect(refused).toMatchObject({state: 'pending', attempts: [{httpStatus: 200, bodyExcerpt: 'fail', acknowledged: false}]})
    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout).toMatch(new RegExp(`^${refused.id}\\tpay\\.success\\t\\S+\\tpending\\t1\\trefused: HTTP 200 "fail"\\t`, 'm'))
  })

  it('resends by id prefix, continuing the attempt log; an unknown id is bad input', async () => {
    const r = await receiver()
    await paidOrder(r.url, 'RESEND1')
    const delivered = await callbackFor('RESEND1', (n) => n.state === 'delivered')
    r.answers.push({status: 503, body: 'busy'})
    // the answer is the attempt just made, not a snapshot from before it; its retry waits for the clock
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

describe('retries under a moved clock (notes section 5)', () => {
  // 15s, 15s, 30s, 3m, 10m, 20m, 30m, 30m, 30m, 60m, 3h, 3h, 3h, 6h, 6h, 6h: 16 retries in about 30 h
  const schedule = [15 * S, 15 * S, 30 * S, 3 * M, 10 * M, 20 * M, 30 * M, 30 * M, 30 * M, 60 * M, 3 * H, 3 * H, 3 * H, 6 * H, 6 * H, 6 * H]
  const dueAfterFirst = schedule.reduce((times, delay) => [...times, times.at(-1)! + delay], [0])

  it('a week of `sandbox clock advance 1d`: every retry made at its due time on the sandbox clock, then given up', async () => {
    const r = await receiver()
    for (let i = 0; i < 20; i++) r.answers.push({status: 503, body: 'down'})
    await paidOrder(r.url, 'WEEK1')
    await callbackFor('WEEK1', (n) => n.attempts.length === 1)
    const attempts: number[] = []
    for (let day = 0; day < 7; day++) {
      await advance('1d')
      // the command returns once the retries it made due are made
      attempts.push((await callbackFor('WEEK1', () => true)).attempts.length)
    }
    // the first day reaches every retry but the last two (24 h 4 min and 30 h 4 min after the first)
    expect(attempts).toEqual([15, 17, 17, 17, 17, 17, 17])
    const given = await callbackFor('WEEK1', () => true)
    expect(given).toMatchObject({state: 'given_up'})
    expect(given.nextAttemptAt).toBeUndefined()
    expect(afterFirst(given)).toEqual(dueAfterFirst)
    expect(r.received).toHaveLength(17)
    const piped = await c.run(['sandbox', 'callbacks', 'list'])
    expect(piped.stdout).toContain(`${given.id}\tpay.success\t${r.url}\tgiven_up\t17\trefused: HTTP 503 "down"\t-`)
  })
})

describe('a sandbox restart mid-schedule', () => {
  it('killed between attempts: the next command restarts it, the clock still paused, and the retry is delivered when due', async () => {
    const pid = await sandboxPid()
    const r = await receiver()
    r.answers.push({status: 500, body: 'down'})
    await paidOrder(r.url, 'KILL1')
    const failed = await callbackFor('KILL1', (n) => n.attempts.length === 1)
    expect(failed.state).toBe('pending')
    await kill(pid)

    const listed = await c.run(['sandbox', 'callbacks', 'list'])
    expect(listed.stderr).toMatch(/starting the local sandbox in the background/)
    expect(await sandboxPid()).not.toBe(pid)
    expect((await c.json(['sandbox', 'clock', 'advance', '14s'])).body.data).toMatchObject({paused: true})
    expect(await callbackFor('KILL1', () => true)).toMatchObject({state: 'pending', attempts: [{httpStatus: 500}], nextAttemptAt: failed.nextAttemptAt})
    await advance('1s')
    const delivered = await callbackFor('KILL1', () => true)
    expect(delivered.attempts).toMatchObject([
      {httpStatus: 500, acknowledged: false},
      {httpStatus: 200, acknowledged: true},
    ])
    expect(afterFirst(delivered)).toEqual([0, 15 * S])
    expect(r.received).toHaveLength(2)
  })

  it('killed during an attempt: the attempt is logged as interrupted, never as delivered, and sent again after the restart', async () => {
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

    // resent at once after the restart, though the clock stands still: the sandbox failed, not the receiver
    const delivered = await callbackFor('KILL2', (n) => n.state === 'delivered')
    expect(delivered.attempts).toMatchObject([
      {at: before.attemptStartedAt, acknowledged: false, error: 'interrupted: the sandbox stopped before the answer'},
      {httpStatus: 200, acknowledged: true},
    ])
    expect(delivered).not.toHaveProperty('attemptStartedAt')
    expect(received).toBe(2)
  })
})

describe('sandbox start --time-scale', () => {
  it('divides the retry schedule: at 1000x the first retries are due 15, 15 and 30 ms after each attempt', async () => {
    const scaled = cli()
    cleanups.push(() => scaled.cleanup())
    expect((await scaled.run(['sandbox', 'start', '--time-scale', '1000'])).code).toBe(0)
    expect((await scaled.run(['sandbox', 'clock', 'pause'])).code).toBe(0)
    const r = await receiver()
    r.answers.push({status: 500, body: 'a'}, {status: 500, body: 'b'}, {status: 500, body: 'c'})
    const created = await scaled.json(['pay', 'create', '--title', 'x', '--amount', '1', '--auth-code', '134567890123456789', '--biz-order-no', 'SCALED1', '--notify-url', r.url])
    expect(created.code).toBe(0)
    const list = async () => ((await scaled.json(['sandbox', 'callbacks', 'list'])).body.data as Notification[])[0]
    await waitFor(async () => (await list())?.attempts.length === 1)
    expect((await scaled.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
    const delivered = await list()
    expect(delivered.state).toBe('delivered')
    expect(afterFirst(delivered)).toEqual([0, 15, 30, 60])
  })
})
