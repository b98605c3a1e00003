import {afterEach, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import type {Notification} from '../../src/sandbox/notifier.js'
import {callbackReceiver, controlHeaders, removeDir, testSandbox, waitFor, type Receiver, type TestSandbox, type TestSandboxOptions} from '../helpers/sandbox.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function setup(options: TestSandboxOptions = {}): Promise<{t: TestSandbox; receiver: Receiver}> {
  const t = await testSandbox(options)
  const receiver = await callbackReceiver()
  cleanups.push(() => removeDir(t.dataDir), () => t.close(), () => receiver.close())
  return {t, receiver}
}

describe('pay callbacks', () => {
  it('sends pay.success in the system envelope, flattened data, signed by the platform key', async () => {
    const {t, receiver} = await setup()
    const created = await t.send(endpoints.pay, {bizOrderNo: 'CB1', title: '咖啡', amount: 100, authCode: '134567890123456789', notifyUrl: receiver.url, attach: 'a=1&b'})
    expect(created.data.status).toBe('success')
    await waitFor(() => receiver.received.length === 1)
    const raw = receiver.received[0].body
    const read = readEnvelope(raw, t.client.platformKey)
    expect(read.verified).toBe(true)
    const body = JSON.parse(raw)
    expect(body).toMatchObject({code: 0, msg: 'success', event: 'pay.success', protocol: 'system', mchNo: t.client.mchNo, appId: t.client.appId})
    expect(body.eventId).toBeTruthy()
    expect(body.data).toMatchObject({bizOrderNo: 'CB1', status: 'success', amount: '100', title: '咖啡', attach: 'a=1&b'})
    for (const value of Object.values(body.data)) expect(typeof value).toBe('string')
    expect(read.canonical).toContain('data.amount=100&data.attach=a=1&b')
  })

  it('sends pay.close on close and pay.fail on a failed payment', async () => {
    const {t, receiver} = await setup()
    await t.send(endpoints.pay, {bizOrderNo: 'CB2', title: 'x', amount: 1, method: 'walletA_qr', notifyUrl: receiver.url})
    await t.send(endpoints.close, {bizOrderNo: 'CB2', useCancel: true})
    await t.send(endpoints.pay, {bizOrderNo: 'CB3', title: 'x', amount: 1, authCode: '134567890123459999', notifyUrl: receiver.url})
    await waitFor(() => receiver.received.length === 2)
    const events = receiver.received.map((r) => JSON.parse(r.body)).map((b) => `${b.event}:${b.data.status}`)
    expect(events.sort()).toEqual(['pay.close:cancel', 'pay.fail:fail'])
  })

  it('retries until acknowledged, on the schedule, keeping every attempt', async () => {
    const {t, receiver} = await setup({pausedClock: true})
    receiver.answers.push({status: 500, body: 'oops'}, {status: 200, body: 'not yet'}, {status: 200, body: ' success \n'})
    await t.send(endpoints.pay, {bizOrderNo: 'CB4', title: 'x', amount: 1, authCode: '134567890123456789', notifyUrl: receiver.url})
    await waitFor(async () => (await readNotifications(t))[0]?.attempts.length === 1)
    // retries due 15 s and 30 s after the first attempt
    await t.advance(30_000)
    const [notification] = await readNotifications(t)
    expect(notification.state).toBe('delivered')
    expect(receiver.received).toHaveLength(3)
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1)
    expect(notification.attempts.map((a) => [a.httpStatus, a.acknowledged])).toEqual([
      [500, false],
      [200, false],
      [200, true],
    ])
    expect(notification.attempts[0].bodyExcerpt).toBe('oops')
  })
})

describe('retries under a moved clock (notes section 5)', () => {
  // 15s, 15s, 30s, 3m, 10m, 20m, 30m, 30m, 30m, 60m, 3h, 3h, 3h, 6h, 6h, 6h after each attempt
  const S = 1000
  const M = 60 * S
  const H = 60 * M
  const schedule = [15 * S, 15 * S, 30 * S, 3 * M, 10 * M, 20 * M, 30 * M, 30 * M, 30 * M, 60 * M, 3 * H, 3 * H, 3 * H, 6 * H, 6 * H, 6 * H]
  /** When attempt i is due, from the first: 0, 15 s, 30 s, 1 min, 4 min, ... 30 h 4 min. */
  const dueAfterFirst = schedule.reduce((times, delay) => [...times, times.at(-1)! + delay], [0])

  async function firstAttemptFailed(t: TestSandbox, bizOrderNo: string, receiver: Receiver): Promise<Notification> {
    await t.send(endpoints.pay, {bizOrderNo, title: 'x', amount: 1, authCode: '134567890123456789', notifyUrl: receiver.url})
    return waitFor(async () => (await readNotifications(t)).find((n) => JSON.parse(n.body).data.bizOrderNo === bizOrderNo && n.attempts.length === 1))
  }

  it('a week in one jump: all 16 retries are made, one after another, each at its due time, then given up', async () => {
    const {t, receiver} = await setup({pausedClock: true})
    for (let i = 0; i < 20; i++) receiver.answers.push({status: 503, body: 'down'})
    const first = await firstAttemptFailed(t, 'JUMP1', receiver)
    const firstAt = Date.parse(first.attempts[0].at)
    expect(first.nextAttemptAt).toBe(firstAt + 15 * S)
    // the clock stands still: no retry comes until it moves
    expect(receiver.received).toHaveLength(1)

    await t.advance(7 * 24 * H)
    // answered once the retries are made: nothing to wait for
    const [done] = await readNotifications(t)
    expect(done.state).toBe('given_up')
    expect(done.nextAttemptAt).toBeUndefined()
    expect(done.attempts.map((a) => Date.parse(a.at) - firstAt)).toEqual(dueAfterFirst)
    expect(done.attempts.every((a) => a.httpStatus === 503 && !a.acknowledged)).toBe(true)
    expect(receiver.received).toHaveLength(17)
  })

  it('a week in steps gives the same attempts; a receiver back mid-jump gets its callback at that due time, and no more', async () => {
    const {t, receiver} = await setup({pausedClock: true})
    for (let i = 0; i < 20; i++) receiver.answers.push({status: 500, body: 'down'})
    const first = await firstAttemptFailed(t, 'STEPS1', receiver)
    const firstAt = Date.parse(first.attempts[0].at)
    const steps = [20 * S, 24 * H, 6 * 24 * H]
    const attemptsAfter: number[] = []
    for (const step of steps) {
      await t.advance(step)
      attemptsAfter.push((await readNotifications(t))[0].attempts.length)
    }
    // 20 s reaches the retry due at 15 s; a day reaches all but the last two (24 h 4 min, 30 h 4 min)
    expect(attemptsAfter).toEqual([2, 15, 17])
    const [done] = await readNotifications(t)
    expect(done.state).toBe('given_up')
    expect(done.attempts.map((a) => Date.parse(a.at) - firstAt)).toEqual(dueAfterFirst)

    // the receiver fails five times, then answers SUCCESS: delivered by the sixth attempt, at 14 min
    receiver.answers.length = 0
    receiver.received.length = 0
    for (let i = 0; i < 5; i++) receiver.answers.push({status: 502, body: 'gateway'})
    const back = await firstAttemptFailed(t, 'STEPS2', receiver)
    const backAt = Date.parse(back.attempts[0].at)
    await t.advance(7 * 24 * H)
    const delivered = (await readNotifications(t)).find((n) => n.id === back.id)!
    expect(delivered.state).toBe('delivered')
    expect(delivered.attempts.map((a) => [Date.parse(a.at) - backAt, a.acknowledged])).toEqual([
      [0, false], [15 * S, false], [30 * S, false], [M, false], [4 * M, false], [14 * M, true],
    ])
    expect(receiver.received).toHaveLength(6)
  })
})

/** The control endpoint the CLI reads notifications from. */
async function readNotifications(t: TestSandbox): Promise<Notification[]> {
  return (await fetch(`${t.sandbox.url}/_sandbox/notifications`, {headers: controlHeaders(t.sandbox.runtime)})).json() as Promise<Notification[]>
}

describe('persistence', () => {
  it('keeps orders, pending callbacks and a paused clock across a restart, and resumes delivery', async () => {
    const t = await testSandbox({pausedClock: true})
    const receiver = await callbackReceiver()
    cleanups.push(() => removeDir(t.dataDir), () => receiver.close())
    receiver.answers.push({status: 500, body: 'down'})
    const created = await t.send(endpoints.pay, {bizOrderNo: 'KEEP1', title: 'x', amount: 1, authCode: '134567890123456789', notifyUrl: receiver.url})
    const failed = await waitFor(async () => (await readNotifications(t)).find((n) => n.attempts.length === 1))
    await t.close()
    const again = await testSandbox({}, t.dataDir)
    cleanups.push(() => again.close())
    const queried = await again.send(endpoints.queryPay, {bizOrderNo: 'KEEP1'})
    expect(queried.data.orderNo).toBe(created.data.orderNo)
    // still paused where it stood: the retry waits for the clock
    const clock = (await (await fetch(`${again.sandbox.url}/_sandbox/clock`, {headers: controlHeaders(again.sandbox.runtime)})).json()) as {now: string; paused: boolean}
    expect(clock).toMatchObject({paused: true})
    expect(Date.parse(`${clock.now.replace(' ', 'T')}+08:00`)).toBe(Math.floor(Date.parse(failed.attempts[0].at) / 1000) * 1000)
    expect((await readNotifications(again))[0]).toMatchObject({state: 'pending', nextAttemptAt: failed.nextAttemptAt})
    await again.advance(15_000)
    const [delivered] = await readNotifications(again)
    expect(delivered.attempts.map((a) => a.acknowledged)).toEqual([false, true])
    expect(receiver.received).toHaveLength(2)
  })
})

describe('callbacks and the answer that caused them', () => {
  it('holds a callback kept during a signed call until the call releases it (after its answer is sent)', async () => {
    const {Notifier} = await import('../../src/sandbox/notifier.js')
    const {Store} = await import('../../src/sandbox/store.js')
    const {loadPrivateKey} = await import('../../src/protocol/keys.js')
    const {mkdtempSync, readFileSync} = await import('node:fs')
    const {tmpdir} = await import('node:os')
    const {join} = await import('node:path')
    const {t, receiver} = await setup()
    const dir = mkdtempSync(join(tmpdir(), 'unipay-notifier-'))
    cleanups.push(() => removeDir(dir))
    const store = new Store(join(dir, 'journal.jsonl')).open()
    const platformKey = loadPrivateKey(readFileSync(join(t.dataDir, 'sandbox', 'keys', 'platform-private.pem'), 'utf8'))
    const notifier = new Notifier({store, platformKey, timeScale: 1, now: () => new Date()})
    notifier.start()
    cleanups.push(() => (notifier.stop(), store.close()))
    const {value: held, release} = notifier.withheld(() => notifier.emit({event: 'pay.success', url: receiver.url, mchNo: 'M1', data: {orderNo: 'DP1'}}))
    // kept on disk at once, whatever the wait: a restart sends it
    expect(store.values<Notification>('notifications').map((n) => n.id)).toEqual([held.id])
    // a later callback, not held, is delivered; the held one was never even tried before it
    const later = notifier.emit({event: 'pay.success', url: receiver.url, mchNo: 'M1', data: {orderNo: 'DP2'}})
    await waitFor(() => store.get<Notification>('notifications', later.id)?.state === 'delivered')
    const untried = store.get<Notification>('notifications', held.id)!
    expect(untried).toMatchObject({state: 'pending', attempts: []})
    expect(untried.attemptStartedAt).toBeUndefined()
    const orderNos = () => receiver.received.map((r) => JSON.parse(r.body).data.orderNo)
    expect(orderNos()).toEqual(['DP2'])
    release()
    await waitFor(() => receiver.received.length === 2)
    expect(orderNos()).toEqual(['DP2', 'DP1'])
  })
})
