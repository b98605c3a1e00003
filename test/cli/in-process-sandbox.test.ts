// The test helper's in-process sandbox (cli({sandbox: 'in-process'})): the CLI finds it where it
// finds the daemon, no daemon is started, and the commands that manage the daemon by its pid
// refuse, since that pid would be this test worker's.
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, inject, it, onTestFinished} from 'vitest'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {SandboxStatusResult} from '../../src/commands/sandbox/status.js'
import {cli} from '../helpers/cli.js'

describe('a sandbox in the test process', () => {
  it('serves the CLI without a daemon, refuses to be stopped by pid, and closes with the test', async () => {
    const c = cli({sandbox: 'in-process'})
    onTestFinished(() => c.cleanup())
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

describe('a first start with no keys', () => {
  it('makes its own key pairs (private ones 0600), not the ones the other tests share', async () => {
    const c = cli({sandbox: 'in-process', seedKeys: false})
    onTestFinished(() => c.cleanup())
    await c.result<PayCreateResult>(['pay', 'create', '--title', 'Coffee', '--amount', '100'])
    const keys = join(c.dir, 'data', 'unipay', 'sandbox', 'keys')
    const shared = inject('sandboxKeys')
    for (const name of ['platform', 'merchant', 'login'] as const) {
      expect(statSync(join(keys, `${name}-private.pem`)).mode & 0o777).toBe(0o600)
      expect(readFileSync(join(keys, `${name}-public.pem`), 'utf8')).not.toBe(shared[name].publicKeyPem)
    }
  })
})
