import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
let paidBizOrderNo = ''
beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  paidBizOrderNo = (await c.json(['pay', 'create', '--title', 'Known', '--amount', '1', '--auth-code', '134567890123456789'])).body.data.bizOrderNo
})
afterEach(async () => {
  await c.run(['sandbox', 'faults', 'clear'])
})
afterAll(async () => {
  await c.cleanup()
})

const fault = async (name: string, ...flags: string[]) => expect((await c.run(['sandbox', 'faults', 'add', name, ...flags])).code).toBe(0)
/** One line of reason (plus an optional hint), never a stack trace. */
const expectCleanError = (stderr: string) => {
  expect(stderr).toMatch(/^Error: /m)
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
}

describe('reads under faults: retried, then fine', () => {
  it.each(['http-500', 'not-json', 'reset'])('%s once', async (name) => {
    await fault(name, '--path', '/unipay/query/pay-order')
    const result = await c.run(['query', 'pay', '--biz-order-no', paidBizOrderNo])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^status\tsuccess/m)
  })

  it('a timeout once (with --timeout 5)', async () => {
    await fault('timeout', '--path', '/unipay/query/pay-order')
    // the retry must be answered within the timeout too: 5 s leaves room for a loaded machine
    const result = await c.run(['query', 'pay', '--biz-order-no', paidBizOrderNo, '--timeout', '5'])
    expect(result.code).toBe(0)
  })

  it('latency within the timeout', async () => {
    await fault('latency', '--latency', '400')
    expect((await c.run(['query', 'pay', '--biz-order-no', paidBizOrderNo])).code).toBe(0)
  })

  it('gives up clearly when the failure persists (exit 4)', async () => {
    await fault('http-500', '--times', '5')
    const result = await c.run(['query', 'pay', '--biz-order-no', paidBizOrderNo])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain('HTTP 500')
    expectCleanError(result.stderr)
  })
})

describe('answers that do not verify: exit 3, not retried', () => {
  it.each([
    ['unsigned-success', 'the answer says success but carries no signature'],
    ['bad-signature', 'signature does not verify with the platform public key'],
  ])('%s', async (name, message) => {
    await fault(name, '--times', '3')
    const result = await c.run(['query', 'pay', '--biz-order-no', paidBizOrderNo])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(message)
    expectCleanError(result.stderr)
  })
})

describe('creates under faults: never resent blindly, reported as outcome unknown', () => {
  it.each([
    ['reset', []],
    ['timeout', ['--timeout', '1']],
    ['not-json', []],
    ['http-500', []],
  ])('%s on pay create', async (name, extra) => {
    await fault(name, '--path', '/unipay/pay')
    const bizOrderNo = `FAULT-${name}-${Date.now()}`
    const result = await c.run(['pay', 'create', '--title', 'x', '--amount', '1', '--biz-order-no', bizOrderNo, ...extra])
    expect(result.code).toBe(4)
    expect(result.stderr).toMatch(/^Error: outcome unknown: /m)
    expect(result.stderr).toContain(`Check with: unipay query pay --biz-order-no ${bizOrderNo}`)
    expectCleanError(result.stderr)
    // The fault struck once; a resend would have succeeded and exited 0. Whether the order
    // exists depends on when the fault struck: after processing (reset, timeout) it does.
    const query = await c.run(['query', 'pay', '--biz-order-no', bizOrderNo])
    expect(query.code).toBe(name === 'reset' || name === 'timeout' ? 0 : 1)
  })

  it('says the same in the JSON envelope', async () => {
    await fault('reset', '--path', '/unipay/refund')
    const result = await c.json(['refund', 'create', '--biz-order-no', paidBizOrderNo, '--amount', '1', '--biz-refund-no', 'RF-FAULT'])
    expect(result.code).toBe(4)
    expect(result.body.error).toMatchObject({kind: 'transport', exitCode: 4, details: {outcomeUnknown: true, bizRefundNo: 'RF-FAULT'}})
    expect((await c.json(['query', 'refund', '--biz-refund-no', 'RF-FAULT'])).body.data.amount).toBe(1)
  })

  it('an unsigned success on a create is a verification failure (exit 3)', async () => {
    await fault('unsigned-success', '--path', '/unipay/pay')
    const result = await c.run(['pay', 'create', '--title', 'x', '--amount', '1', '--biz-order-no', 'FAULT-UNSIGNED'])
    expect(result.code).toBe(3)
    expectCleanError(result.stderr)
    expect(result.stderr).toContain('Check with: unipay query pay --biz-order-no FAULT-UNSIGNED')
  })
})

describe('managing faults', () => {
  it('lists the armed faults and says how many were cleared', async () => {
    await fault('latency', '--times', '2', '--latency', '50')
    await fault('http-500', '--path', '/unipay/refund')
    const list = await c.json(['sandbox', 'faults', 'list'])
    expect(list.body.data).toEqual([
      expect.objectContaining({fault: 'latency', remaining: 2, latencyMs: 50}),
      expect.objectContaining({fault: 'http-500', remaining: 1, path: '/unipay/refund'}),
    ])
    const cleared = await c.run(['sandbox', 'faults', 'clear'])
    expect(cleared.stderr).toContain('removed 2 armed fault(s); none left')
    expect((await c.json(['sandbox', 'faults', 'list'])).body.data).toEqual([])
  })
})
