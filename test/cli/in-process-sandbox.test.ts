// The test helper's in-process sandbox (cli({sandbox: 'in-process'})): the CLI finds it where it
// finds the daemon, no daemon is started, and the commands that manage the daemon by its pid
// refuse, since that pid would be this test worker's.
import {describe, expect, it} from 'vitest'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {SandboxStatusResult} from '../../src/commands/sandbox/status.js'
import {cli} from '../helpers/cli.js'

describe('a sandbox in the test process', () => {
  it('serves the CLI without a daemon, refuses to be stopped by pid, and closes with the test', async () => {
    const c = cli({sandbox: 'in-process'})
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Coffee', '--amount', '100'])
    expect(order.orderNo).toMatch(/^DP/)
    const status = await c.result<SandboxStatusResult>(['sandbox', 'status'])
    expect(status).toMatchObject({running: true, pid: process.pid})
    if (!status.running) return
    await expect(c.run(['sandbox', 'stop'])).rejects.toThrow("this test's sandbox runs in-process")
    await c.cleanup()
    await expect(fetch(`${status.url}/unipay/callback/ping`)).rejects.toThrow()
  })
})
