// Replay memory across restarts (protocol-notes section 2): a reqId, and a nonceStr when sent,
// is taken once per merchant within the window, and what was seen is in the journal before the
// answer, so a resend after a restart is refused too. One journal record per request carries
// both keys; journals written with a record per key are still read. Requests are written out
// as a client sends them, signed by an independent signer (jsrsasign).
import {randomBytes} from 'node:crypto'
import {appendFileSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {sandboxDir} from '../../src/protocol/local-sandbox.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {sdkSigned} from '../helpers/sdk.js'
import {removeDir, testSandbox, type TestSandbox} from '../helpers/sandbox.js'

// the sandbox's clock, moved by the test (reqTime must be within 300 s of it)
let clock = Date.parse('2026-11-24T06:00:00Z')
const now = () => new Date(clock)
let dataDir: string
let t: TestSandbox
let merchantPem: string

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'unipay-replay-'))
  t = await testSandbox({now}, dataDir)
  merchantPem = readFileSync(t.sandbox.runtime.merchant.privateKeyFile, 'utf8')
})
afterEach(async () => {
  await t.close()
  removeDir(dataDir)
})

const journal = () => join(sandboxDir(dataDir), 'journal.jsonl')
const replayLines = () =>
  readFileSync(journal(), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"c":"replay"'))

const restart = async () => {
  await t.close()
  t = await testSandbox({now}, dataDir)
}

/** A ping as its bytes, signed by the outside signer. */
function ping(fields: {reqId: string; nonceStr?: string}): string {
  return JSON.stringify(sdkSigned({mchNo: 'M1000000001', appId: 'A1000000001', ...fields, reqTime: formatGmt8(now())}, merchantPem))
}

const codeOf = async (text: string) => (await t.post('/unipay/ping', text)).body as {code: number; msg: string}

describe('replay memory', () => {
  it('refuses a reqId and a nonceStr after a restart, from one journal record per request', async () => {
    const nonceStr = randomBytes(16).toString('hex')
    const first = ping({reqId: 'R-ONE', nonceStr})
    expect((await codeOf(first)).code).toBe(0)
    expect(replayLines()).toEqual([`{"c":"replay","k":"M1000000001\\u0000r\\u0000R-ONE","v":{"forgetAt":${clock + 300_000},"nonce":"M1000000001\\u0000n\\u0000${nonceStr}"}}`])
    await restart()
    expect(await codeOf(first)).toMatchObject({code: 10409, msg: 'reqId R-ONE was already used'})
    expect(await codeOf(ping({reqId: 'R-TWO', nonceStr}))).toMatchObject({code: 10409, msg: `nonceStr ${nonceStr} was already used`})
    // without a nonceStr, the reqId alone
    expect((await codeOf(ping({reqId: 'R-THREE'}))).code).toBe(0)
    await restart()
    expect((await codeOf(ping({reqId: 'R-THREE'}))).code).toBe(10409)
  })

  it('reads a journal written with one record per key', async () => {
    await t.close()
    const forgetAt = clock + 200_000
    appendFileSync(
      journal(),
      `{"c":"replay","k":"M1000000001\\u0000r\\u0000R-OLD","v":{"key":"M1000000001\\u0000r\\u0000R-OLD","forgetAt":${forgetAt}}}\n` +
        `{"c":"replay","k":"M1000000001\\u0000n\\u0000N-OLD","v":{"key":"M1000000001\\u0000n\\u0000N-OLD","forgetAt":${forgetAt}}}\n`,
    )
    t = await testSandbox({now}, dataDir)
    expect((await codeOf(ping({reqId: 'R-OLD', nonceStr: 'N-NEW'}))).msg).toBe('reqId R-OLD was already used')
    expect((await codeOf(ping({reqId: 'R-NEW', nonceStr: 'N-OLD'}))).msg).toBe('nonceStr N-OLD was already used')
    // once past the window both are forgotten, and the journal says so for each record
    clock += 300_000
    expect((await codeOf(ping({reqId: 'R-OLD', nonceStr: 'N-OLD'}))).code).toBe(0)
    expect(replayLines().filter((line) => line.endsWith('"v":null}'))).toHaveLength(2)
  })

  it('forgets a request once its reqTime is out of the window, with one journal line', async () => {
    expect((await codeOf(ping({reqId: 'R-GONE', nonceStr: 'N-GONE'}))).code).toBe(0)
    clock += 300_001
    // the next check prunes what is past its time: the record goes, its nonceStr with it
    expect((await codeOf(ping({reqId: 'R-NEXT', nonceStr: 'N-NEXT'}))).code).toBe(0)
    expect(replayLines().filter((line) => line.endsWith('"v":null}'))).toEqual(['{"c":"replay","k":"M1000000001\\u0000r\\u0000R-GONE","v":null}'])
    await restart()
    expect((await codeOf(ping({reqId: 'R-GONE', nonceStr: 'N-GONE'}))).code).toBe(0)
    expect((await codeOf(ping({reqId: 'R-NEXT2', nonceStr: 'N-NEXT'}))).code).toBe(10409)
  })
})
