// The control plane's answers to bad input: malformed JSON and a body its schema refuses get
// HTTP 400, and every control error, whatever its status, is {code, message} and nothing
// else, which the CLI's control client turns into its message.
import {describe, expect, it} from 'vitest'
import {controlCall} from '../../src/local-sandbox/control.js'
import {CONTROL_SECRET_HEADER} from '../../src/protocol/local-sandbox.js'
import {controlHeaders, useTestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

/** A control call with the secret and a JSON content type, the body sent as these exact bytes. */
async function controlRaw(method: string, path: string, body?: string, headers = controlHeaders(t.sandbox.runtime)) {
  const response = await fetch(`${t.sandbox.url}/_sandbox/${path}`, {method, headers, body})
  return {status: response.status, body: (await response.json())}
}

const clockOffset = async () => ((await controlRaw('GET', 'clock')).body as {offsetMs: number}).offsetMs

const POST_PATHS = [
  'faults', 'clock', 'gateway/close', 'pay', 'refunds/R1/settle', 'users', 'merchants', 'merchants/settings',
  'receivers', 'balance', 'trigger', 'transfers/T1/confirm', 'transfers/T1/reject', 'notifications/N1/resend',
]

describe('control calls with bad input', () => {
  it('answer malformed JSON with 400 and {code: 10505, message} on every POST route, changing nothing', async () => {
    for (const path of POST_PATHS) {
      const answer = await controlRaw('POST', path, '{"advanceMs": 60000,')
      expect({path, ...answer}).toEqual({path, status: 400, body: {code: 10505, message: expect.stringMatching(/^request body is not JSON: /)}})
    }
    expect(await clockOffset()).toBe(0)
  })

  it.each([
    ['clock', 'null', 'body: must be a JSON object'],
    ['clock', '[60000]', 'body: must be a JSON object'],
    ['clock', '{"advanceMs":"60000"}', 'advanceMs: whole milliseconds, more than 0 (the clock only moves forward)'],
    ['faults', '{"fault":"latency","latencyMs":"soon"}', 'latencyMs: Invalid input: expected number, received string'],
    ['faults', '{"fault":"explode"}', 'fault: one of latency, http-500, not-json, reset, timeout, unsigned-success, bad-signature'],
    ['pay', '{}', 'order: is required'],
    ['pay', '{"order":42}', 'order: must be a string'],
    ['pay', '{"order":"P1","outcome":"maybe"}', 'outcome: Invalid option: expected one of "success"|"fail"'],
    ['refunds/R1/settle', '{"outcome":"later"}', 'outcome: Invalid option: expected one of "success"|"fail"|"close"'],
    ['merchants', '{"mchNo":"M 1","publicKeyPem":"x"}', 'mchNo: 1-32 letters, digits, _ or -'],
    ['merchants/settings', '{"mchNo":"M1000000001","allocAmountUnit":"fen"}', 'allocAmountUnit: yuan or cents'],
    ['balance', '{"mchNo":"M1000000001","amount":1.5}', 'amount: whole cents, at least 0'],
    ['trigger', '{"event":"pay.success","notifyUrl":"ftp://merchant.example/cb"}', 'notifyUrl: an http(s) address'],
  ])('answer a %s body %s that fails its schema with 400 and {code: 10506, message}', async (path, body, message) => {
    expect(await controlRaw('POST', path, body)).toEqual({status: 400, body: {code: 10506, message}})
  })

  it('keep the clock where it was after a refused advance', async () => {
    expect((await controlRaw('POST', 'clock', '{"advanceMs":-5}')).status).toBe(400)
    expect(await clockOffset()).toBe(0)
  })
})

describe('every control error', () => {
  it('is {code, message}: refused, unknown endpoint, unknown merchant, a platform rule', async () => {
    const {[CONTROL_SECRET_HEADER]: _secret, ...noSecret} = controlHeaders(t.sandbox.runtime)
    const refused = await controlRaw('POST', 'clock', '{"advanceMs":1000}', noSecret)
    expect(refused).toEqual({status: 403, body: {code: 403, message: expect.stringContaining(CONTROL_SECRET_HEADER)}})
    expect(await controlRaw('PUT', 'clock', '{}')).toEqual({status: 404, body: {code: 10404, message: 'no control endpoint PUT /_sandbox/clock'}})
    expect(await controlRaw('GET', 'balance?mchNo=M404')).toEqual({status: 400, body: {code: 20023, message: 'no merchant M404'}})
    expect(await controlRaw('POST', 'notifications/N404/resend')).toEqual({status: 404, body: {code: 10405, message: 'no notification N404'}})
    expect(await controlRaw('POST', 'gateway/close', '{"order":"G404"}')).toEqual({status: 200, body: {code: 20041, message: 'no gateway order G404'}})
  })

  it('reaches the CLI as its code and message', async () => {
    await expect(controlCall(t.sandbox.runtime, 'POST', 'gateway/close', {order: 'G404'})).rejects.toThrow('platform error 20041: no gateway order G404')
    await expect(controlCall({...t.sandbox.runtime, controlSecret: 'x'.repeat(43)}, 'GET', 'faults')).rejects.toThrow(
      `platform error 403: missing or wrong ${CONTROL_SECRET_HEADER} header (the secret is in the sandbox's runtime file)`,
    )
    await expect(controlCall(t.sandbox.runtime, 'POST', 'balance', {mchNo: 'M1000000001', amount: -1})).rejects.toThrow('platform error 10506: amount: whole cents, at least 0')
  })
})
