import {writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {Notification} from '../../src/protocol/notifications.js'
import {cli, type Cli} from '../helpers/cli.js'
import {startListen, type RunningListen} from '../helpers/listen.js'
import {callbackReceiver, freePort, runtimeIn, waitFor, type Receiver} from '../helpers/sandbox.js'

let c: Cli
const cleanups: (() => Promise<unknown>)[] = []
beforeAll(async () => {
  c = cli()
  // the sandbox clock stands still: a retry comes when a test moves it through its due time
  expect((await c.run(['sandbox', 'start'])).code).toBe(0)
  expect((await c.run(['sandbox', 'clock', 'pause'])).code).toBe(0)
})
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})
afterAll(async () => {
  await c.cleanup()
})

async function listen(args: string[]): Promise<RunningListen> {
  const running = await startListen(c, args)
  cleanups.push(() => running.stop('SIGKILL'))
  return running
}

async function receiver(): Promise<Receiver> {
  const r = await callbackReceiver()
  cleanups.push(() => r.close())
  return r
}

/** Creates an order with this notifyUrl and pays it in the sandbox: pay.success is sent. */
async function paidOrder(notifyUrl: string): Promise<{orderNo: string; bizOrderNo: string}> {
  const created = await c.json(['pay', 'create', '--title', 'Coffee', '--amount', '100', '--notify-url', notifyUrl])
  expect(created.code).toBe(0)
  expect((await c.run(['sandbox', 'pay', created.body.data.orderNo])).code).toBe(0)
  return created.body.data
}

async function callbackFor(orderNo: string, done: (n: Notification) => boolean): Promise<Notification> {
  return waitFor(async () => {
    const list = await c.json(['sandbox', 'callbacks', 'list'])
    return (list.body.data as Notification[]).find((n) => JSON.parse(n.body).data.orderNo === orderNo && done(n))
  })
}

const jsonLines = (l: RunningListen) => l.lines.map((line) => JSON.parse(line))

describe('listen', () => {
  it('shows a verified pay.success as a JSON line when piped, rejects a changed callback with the reason, survives bad input, stops on SIGINT', async () => {
    const l = await listen(['--port', '0'])
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/notify$/)
    expect(l.stderr()).toContain(`listening on ${l.url} (system POST and easy_pay GET)`)
    // whose key: beside a sandbox started elsewhere (--data-dir), this is how one sees it is not that one's
    // (the line after the address: waited for, as the address is what startListen waits for)
    await waitFor(() => /verifying with the local sandbox's platform key \(SHA256:\S+, at http:\/\/127\.0\.0\.1:\d+\);/.test(l.stderr()))

    const {orderNo, bizOrderNo} = await paidOrder(l.url)
    const [arrival] = await waitFor(() => l.lines.length >= 1 && jsonLines(l))
    expect(arrival).toMatchObject({
      protocol: 'system',
      event: 'pay.success',
      numbers: {orderNo, bizOrderNo},
      amount: '100',
      status: 'success',
      verified: true,
      answer: {status: 200, body: 'SUCCESS'},
    })
    expect(arrival).not.toHaveProperty('rawBody')
    const delivered = await callbackFor(orderNo, (n) => n.state === 'delivered')
    expect(delivered.attempts).toMatchObject([{httpStatus: 200, acknowledged: true}])

    const tampered = delivered.body.replace('"amount":"100"', '"amount":"1"')
    const answer = await fetch(l.url, {method: 'POST', headers: {'content-type': 'application/json'}, body: tampered})
    expect(answer.status).toBe(400)
    expect(await answer.text()).toMatch(/^signature not verified: no common variant verifies/)
    expect((await fetch(l.url, {method: 'POST', body: 'not json'})).status).toBe(400)

    await waitFor(() => l.lines.length >= 3)
    const [, changed, garbage] = jsonLines(l)
    expect(changed).toMatchObject({event: 'pay.success', amount: '1', verified: false, answer: {status: 400}})
    expect(changed.reason).toMatch(/^no common variant verifies: the body was changed after signing/)
    expect(garbage).toMatchObject({verified: false, reason: expect.stringMatching(/^body is not a JSON object/)})

    expect(await l.stop('SIGINT')).toBe(0)
    expect(l.stderr()).toMatch(/stopped\n$/)
  })

  it('relays to an app answering SUCCESS, which acknowledges; --print-body adds the raw body', async () => {
    const app = await receiver()
    const l = await listen(['--port', '0', '--forward-to', app.url, '--print-body'])
    const {orderNo} = await paidOrder(l.url)
    const delivered = await callbackFor(orderNo, (n) => n.state === 'delivered')
    expect(app.received.map((r) => r.body)).toEqual([delivered.body])
    // listen answers the sandbox before its line reaches our pipe
    const [arrival] = await waitFor(() => l.lines.length >= 1 && jsonLines(l))
    expect(arrival).toMatchObject({verified: true, forward: {url: app.url, status: 200}, answer: {status: 200, body: 'SUCCESS'}, rawBody: delivered.body})
    expect(await l.stop('SIGTERM')).toBe(0)
  })

  it('says it verifies with the key file given by --platform-public-key, not the profile\'s key', async () => {
    const file = join(c.dir, 'platform-for-listen.pem')
    writeFileSync(file, runtimeIn(c.env.XDG_DATA_HOME!).platformPublicKeyPem)
    const l = await listen(['--port', '0', '--platform-public-key', file])
    await waitFor(() => l.stderr().includes(`verifying with the platform key file ${file} (SHA256:`) && /, from --platform-public-key\);/.test(l.stderr()))
  })

  it('answers 502 while the app is down, so the sandbox keeps retrying until the app is up', async () => {
    // two free ports, never the same: listen on a port the system chose could be handed the app's
    // freed port, and then refuses to forward to itself
    const port = await freePort()
    let listenPort = await freePort()
    while (listenPort === port) listenPort = await freePort()
    const l = await listen(['--port', String(listenPort), '--forward-to', `http://127.0.0.1:${port}/notify`])
    const {orderNo} = await paidOrder(l.url)
    await callbackFor(orderNo, (n) => n.attempts.length === 1)
    // the first retry is due 15 s after the first attempt
    expect((await c.run(['sandbox', 'clock', 'advance', '15s'])).code).toBe(0)
    const retried = await callbackFor(orderNo, () => true)
    expect(retried.state).toBe('pending')
    expect(retried.attempts).toMatchObject([
      {httpStatus: 502, acknowledged: false, bodyExcerpt: expect.stringMatching(/ECONNREFUSED/)},
      {httpStatus: 502, acknowledged: false},
    ])
    expect(jsonLines(l)[0]).toMatchObject({verified: true, forward: {error: 'ECONNREFUSED'}, answer: {status: 502}})

    const app = createServer((_req, res) => res.end('SUCCESS'))
    await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', () => resolve()))
    cleanups.push(() => new Promise((resolve) => app.close(resolve)))
    // and the second 15 s after that
    expect((await c.run(['sandbox', 'clock', 'advance', '15s'])).code).toBe(0)
    const delivered = await callbackFor(orderNo, () => true)
    expect(delivered.state).toBe('delivered')
    expect(delivered.attempts.map((a) => [a.httpStatus, a.acknowledged])).toEqual([[502, false], [502, false], [200, true]])
    expect(await l.stop('SIGINT')).toBe(0)
  })

  it('says so when the port is taken (exit 2)', async () => {
    const l = await listen(['--port', '0'])
    const port = new URL(l.url).port
    const second = await c.run(['listen', '--port', port])
    expect(second.code).toBe(2)
    expect(second.stderr).toContain(`--port: cannot listen on 127.0.0.1:${port} (EADDRINUSE); pick another port, or 0 for a free one`)
    expect((await c.run(['listen', '--forward-to', 'localhost:3000'])).stderr).toContain('--forward-to: must be an http(s) URL')
  })
})
