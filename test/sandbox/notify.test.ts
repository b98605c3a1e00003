import {afterEach, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import type {Notification} from '../../src/sandbox/notifier.js'
import {callbackReceiver, controlHeaders, removeDir, testSandbox, waitFor, type Receiver, type TestSandbox} from '../helpers/sandbox.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function setup(timeScale = 1): Promise<{t: TestSandbox; receiver: Receiver}> {
  const t = await testSandbox({timeScale})
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
    const {t, receiver} = await setup(1000)
    receiver.answers.push({status: 500, body: 'oops'}, {status: 200, body: 'not yet'}, {status: 200, body: ' success \n'})
    await t.send(endpoints.pay, {bizOrderNo: 'CB4', title: 'x', amount: 1, authCode: '134567890123456789', notifyUrl: receiver.url})
    const notification = await waitFor(async () => (await readNotifications(t)).find((n) => n.state === 'delivered'))
    expect(receiver.received).toHaveLength(3)
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1)
    expect(notification.attempts.map((a) => [a.httpStatus, a.acknowledged])).toEqual([
      [500, false],
      [200, false],
      [200, true],
    ])
    expect(notification.attempts[0].bodyExcerpt).toBe('oops')
  })

  it('gives up after 16 retries', async () => {
    const {t, receiver} = await setup(100_000)
    for (let i = 0; i < 20; i++) receiver.answers.push({status: 503, body: 'down'})
    await t.send(endpoints.pay, {bizOrderNo: 'CB5', title: 'x', amount: 1, authCode: '134567890123456789', notifyUrl: receiver.url})
    const notification = await waitFor(async () => (await readNotifications(t)).find((n) => n.state === 'given_up'), 20_000)
    expect(notification.attempts).toHaveLength(17)
    expect(receiver.received).toHaveLength(17)
  })
})

/** The control endpoint the CLI reads notifications from. */
async function readNotifications(t: TestSandbox): Promise<Notification[]> {
  return (await fetch(`${t.sandbox.url}/_sandbox/notifications`, {headers: controlHeaders(t.sandbox.runtime)})).json() as Promise<Notification[]>
}

describe('persistence', () => {
  it('keeps orders and pending callbacks across a restart and resumes delivery', async () => {
    // Scale 10: the first retry is due 1.5 s after the failed attempt, well after the restart.
    const t = await testSandbox({timeScale: 10})
    const receiver = await callbackReceiver()
    cleanups.push(() => removeDir(t.dataDir), () => receiver.close())
    receiver.answers.push({status: 500, body: 'down'})
    const created = await t.send(endpoints.pay, {bizOrderNo: 'KEEP1', title: 'x', amount: 1, authCode: '134567890123456789', notifyUrl: receiver.url})
    await waitFor(async () => (await readNotifications(t))[0]?.attempts.length === 1)
    await t.close()
    const again = await testSandbox({timeScale: 10}, t.dataDir)
    cleanups.push(() => again.close())
    const queried = await again.send(endpoints.queryPay, {bizOrderNo: 'KEEP1'})
    expect(queried.data.orderNo).toBe(created.data.orderNo)
    expect((await readNotifications(again))[0]).toMatchObject({state: 'pending'})
    const delivered = await waitFor(async () => (await readNotifications(again)).find((n) => n.state === 'delivered'))
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
