// Where official SDK requests met the sandbox's edges (issue 35): a walletA transfer with the
// SDK's transferScene, the unsigned auth endpoint given an openId, the earliest refusals' reqId,
// and wrong types named in words. Each body is written out as the SDK sends it (its nulls, its
// own fields) and signed by an independent signer (helpers/sdk.ts, jsrsasign).
import {describe, expect, it} from 'vitest'
import {endpoints, unsignedEndpoints} from '../../src/protocol/endpoints.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {formatRequestLine, type RequestLogEntry} from '../../src/protocol/sandbox-requests.js'
import {oracleVerify, sdkCommon, sdkSigned, unique} from '../helpers/sdk.js'
import {controlHeaders, useTestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

/** Posts what the SDK signed; the answer must verify (with the outside signer too). */
async function sdkPost(path: string, body: Record<string, unknown>) {
  const answer = await t.post(path, sdkSigned(body, t.merchantPem))
  const read = readEnvelope(answer.text, t.client.platformKey)
  expect(read.verified).toBe(true)
  expect(oracleVerify(read.canonical, read.signature!, t.sandbox.runtime.platformPublicKeyPem)).toBe(true)
  return answer.body
}

/** The requests the sandbox logged for a path, newest last (what `sandbox logs --json` shows). */
async function logged(path: string): Promise<RequestLogEntry[]> {
  const answer = await fetch(`${t.sandbox.url}/_sandbox/requests?limit=500`, {headers: controlHeaders(t.sandbox.runtime)})
  const {entries} = (await answer.json()) as {entries: RequestLogEntry[]}
  return entries.filter((entry) => entry.path === path)
}

describe('a walletA transfer with transferScene (protocol-notes §4)', () => {
  it('is accepted and the scene ignored, as the platform does not forward it to walletA; `sandbox logs` says so', async () => {
    // the Java SDK's transfer: every field of its request class, unset ones null, the scene it was configured with
    const body = {
      ...sdkCommon(),
      channel: 'walletA',
      channelMchNo: 'CM_SANDBOX',
      bizTransferNo: unique('TF'),
      amount: 100,
      title: 'Bonus',
      reason: null,
      payeeType: 'openid',
      payeeAccount: unique('o'),
      payeeName: null,
      attach: null,
      notifyUrl: null,
      transferScene: '1000',
      reportInfos: [{infoType: 'activity', infoContent: 'November bonus'}],
      source: 'unipay-java-sdk/2.3.1',
    }
    const answer = await sdkPost(endpoints.transfer.path, body)
    expect(answer).toMatchObject({code: 0, data: {status: 'processing'}})
    expect(answer.data.confirmUrl).toBeTruthy()
    const [entry] = (await logged(endpoints.transfer.path)).slice(-1)
    expect(entry).toMatchObject({code: '0', notes: [expect.stringMatching(/^transferScene ignored: the platform does not forward it to walletA/)]})
    expect(formatRequestLine(entry)).toMatch(/\n {4}note: transferScene ignored: /)
    // walletB takes its scene as before, and nothing is noted
    const walletB = await sdkPost(endpoints.transfer.path, {...body, channel: 'walletB', payeeType: 'user_id', bizTransferNo: unique('TF'), reportInfos: null, ...sdkCommon()})
    expect(walletB.code).toBe(0)
    expect((await logged(endpoints.transfer.path)).at(-1)!.notes).toBeUndefined()
  })
})

describe('the unsigned auth endpoint given an openId as authCode', () => {
  /** An auth-code call as the SDKs send it: common fields, nulls, and a sign the endpoint does not check. */
  const authCall = (fields: Record<string, unknown>) =>
    t.post(unsignedEndpoints.auth.path, {...sdkCommon(), authType: 'walletA', channelAppId: null, authToken: null, queryCode: null, ...fields, sign: 'bm90IGNoZWNrZWQ='})

  it('answers the openId without the wallet\'s accessToken, which only the real code exchange gives', async () => {
    const session = (await t.send(endpoints.generateAuthUrl, {authType: 'walletA'})).data as {authUrl: string; queryCode: string}
    expect((await fetch(`${session.authUrl}/approve`, {method: 'POST', redirect: 'manual'})).status).toBe(303)
    const code = /<code id="auth-code">(AC[0-9a-f]+)<\/code>/.exec(await (await fetch(session.authUrl)).text())![1]
    // a poller with the queryCode but not the code: the openId, no token
    const polled = (await authCall({authCode: 'not-the-code', queryCode: session.queryCode})).body
    expect(polled).toMatchObject({code: 0, data: {status: 'success'}})
    expect(polled.data).not.toHaveProperty('accessToken')
    const exchanged = (await authCall({authCode: code})).body
    expect(exchanged.data.accessToken).toMatch(/^at_[0-9a-f]{32}$/)
    // anyone who saw the openId (a payment, a callback) asks with it and any signature
    const byOpenId = (await authCall({authCode: exchanged.data.openId})).body
    expect(byOpenId).toMatchObject({code: 0, message: 'success', data: {status: 'success', openId: exchanged.data.openId}})
    expect(byOpenId.data).not.toHaveProperty('accessToken')
    expect(JSON.stringify(byOpenId)).not.toContain(exchanged.data.accessToken)
  })
})

describe('refusals a client can match to its request', () => {
  it('echoes the reqId on the earliest refusal (a key the string to sign would flatten ambiguously)', async () => {
    const common = sdkCommon()
    const body = sdkSigned({...common, bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr', 'attach.note': 'x'}, t.merchantPem)
    const answer = await t.post(endpoints.pay.path, body)
    expect(answer.body).toMatchObject({code: 10506, reqId: common.reqId})
    expect(readEnvelope(answer.text, t.client.platformKey).verified).toBe(true)
    // a reqId longer than the spec allows is not echoed (a hostile body buys no larger answer)
    const long = await t.post(endpoints.pay.path, {...body, reqId: 'R'.repeat(65)})
    expect(long.body.reqId).toBe('')
  })

  it('names a wrong type in words: useCancel and allocation sent as strings (a PHP client\'s "false", "true")', async () => {
    const created = await sdkPost(endpoints.pay.path, {...sdkCommon(), bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr'})
    const close = await sdkPost(endpoints.close.path, {...sdkCommon(), orderNo: created.data.orderNo, useCancel: 'false'})
    expect(close).toMatchObject({code: 10506, msg: 'useCancel: must be true or false (a JSON boolean), not a string'})
    const pay = await sdkPost(endpoints.pay.path, {...sdkCommon(), bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr', allocation: 'true'})
    expect(pay).toMatchObject({code: 10506, msg: 'allocation: must be true or false (a JSON boolean), not a string'})
  })
})
