import {randomBytes} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {buildUnsignedRequest} from '../../src/client/unsigned.js'
import {canonicalString} from '../../src/protocol/canonical.js'
import {endpoints, unsignedEndpoints} from '../../src/protocol/endpoints.js'
import {signString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {AUTH_SESSION_TTL_MS, AuthSessions, type AuthSession} from '../../src/sandbox/auth.js'
import {Store} from '../../src/sandbox/store.js'
import {removeDir, useTestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

const authUrl = async (fields: Record<string, unknown> = {}) => {
  const answer = await t.send(endpoints.generateAuthUrl, fields)
  expect(answer.code).toBe(0)
  return answer.data as {authUrl: string; queryCode: string; authToken: string}
}

/** The unsigned exchange, as the client builds it (common fields, no sign). */
async function exchange(fields: Record<string, unknown>, set = false, client = t.client) {
  const endpoint = set ? unsignedEndpoints.authAndSet : unsignedEndpoints.auth
  const request = buildUnsignedRequest(client, endpoint, fields)
  return (await t.post(endpoint.path, request.body)).body
}

async function approve(queryCode: string) {
  return fetch(`${t.sandbox.url}/auth/${queryCode}/approve`, {method: 'POST', redirect: 'manual'})
}

/** The auth code the page shows once approved. */
async function approvedCode(queryCode: string): Promise<string> {
  await approve(queryCode)
  const html = await (await fetch(`${t.sandbox.url}/auth/${queryCode}`)).text()
  return /<code id="auth-code">(AC[0-9a-f]+)<\/code>/.exec(html)![1]
}

describe('generate-auth-url', () => {
  it('answers the auth page link, a queryCode and an authToken', async () => {
    const session = await authUrl()
    expect(session.queryCode).toMatch(/^Q[0-9a-f]{24}$/)
    expect(session.authToken).toMatch(/^[0-9a-f]{32}$/)
    expect(session.authUrl).toBe(`${t.sandbox.url}/auth/${session.queryCode}`)
    const page = await fetch(session.authUrl)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('data-status="waiting"')
  })

  it('accepts a request without authType, signed over what it sends, and fills walletA after verifying', async () => {
    const body: Record<string, unknown> = {mchNo: t.client.mchNo, reqId: randomBytes(8).toString('hex'), nonceStr: randomBytes(8).toString('hex'), reqTime: formatGmt8(new Date())}
    body.sign = signString(canonicalString(body), t.client.privateKey!)
    expect((await t.post(endpoints.generateAuthUrl.path, {...body, authType: 'walletA'})).body.code).toBe(20052)
    const answer = await t.post(endpoints.generateAuthUrl.path, body)
    expect(answer.body.code).toBe(0)
    expect(answer.body.data.authUrl).toBeTruthy()
  })

  it('checks channel and authType', async () => {
    expect(await t.send(endpoints.generateAuthUrl, {channel: 'walletZ'})).toMatchObject({code: 20011, msg: 'channel walletZ is unknown'})
    expect(await t.send(endpoints.generateAuthUrl, {channel: 'walletA', authType: 'walletB'})).toMatchObject({
      code: 10506,
      msg: 'authType: walletB does not belong to channel walletA',
    })
    expect((await t.send(endpoints.generateAuthUrl, {channel: 'walletC', authType: 'walletC_pay'})).code).toBe(0)
  })
})

describe('auth and auth-and-set', () => {
  it('answers an unsigned Result: waiting until approved, then success with the openId', async () => {
    const session = await authUrl({product: 'H5', returnPath: '/pages/pay'})
    const waiting = await exchange({authCode: 'pending', queryCode: session.queryCode})
    expect(waiting).toEqual({code: 0, message: 'success', data: {status: 'waiting'}})
    const code = await approvedCode(session.queryCode)
    const answer = await exchange({authCode: code, queryCode: session.queryCode})
    expect(Object.keys(answer).sort()).toEqual(['code', 'data', 'message'])
    expect(answer.data).toMatchObject({status: 'success', returnPath: '/pages/pay'})
    expect(answer.data.openId).toMatch(/^o[\w-]{19}$/)
    expect(answer.data.accessToken).toMatch(/^at_[0-9a-f]{32}$/)
    // polling again is allowed; the queryCode is not single-use
    expect((await exchange({authCode: code, queryCode: session.queryCode})).data.openId).toBe(answer.data.openId)
  })

  it('spends an authToken once, and says so on reuse (20080)', async () => {
    const session = await authUrl()
    const code = await approvedCode(session.queryCode)
    const first = await exchange({authCode: code, authToken: session.authToken})
    expect(first.data.status).toBe('success')
    const again = await exchange({authCode: code, authToken: session.authToken})
    expect(again).toEqual({
      code: 20080,
      message: `authToken ${session.authToken} was already used: it is single-use; generate a new authorization URL`,
      data: null,
    })
    expect((await exchange({authCode: code, queryCode: session.queryCode, authToken: session.authToken})).code).toBe(20080)
    expect((await exchange({authCode: code})).code).toBe(20080)
  })

  it('checks the code against the token\'s session, and tokens of other sessions', async () => {
    const a = await authUrl()
    const b = await authUrl()
    await approvedCode(a.queryCode)
    expect(await exchange({authCode: 'ACwrong', authToken: a.authToken})).toMatchObject({code: 20080, message: 'authCode does not belong to this authorization session'})
    expect(await exchange({authCode: 'x', queryCode: a.queryCode, authToken: b.authToken})).toMatchObject({
      code: 20080,
      message: 'authToken and queryCode belong to different authorization sessions',
    })
    expect((await exchange({authCode: 'x', authToken: 'f'.repeat(32)})).code).toBe(20080)
    expect((await exchange({authCode: 'x', authToken: b.authToken})).data).toEqual({status: 'waiting'})
  })

  it('exchanges a code alone once, and accepts an openId obtained before', async () => {
    const session = await authUrl({authType: 'walletB', channel: 'walletB'})
    const code = await approvedCode(session.queryCode)
    const first = await exchange({authCode: code, authType: 'walletB'})
    expect(first.data).toMatchObject({status: 'success'})
    expect(first.data.userId).toMatch(/^2088\d{12}$/)
    expect(first.data).not.toHaveProperty('accessToken')
    expect((await exchange({authCode: code})).message).toMatch(/^authCode AC[0-9a-f]+ was already used/)
    expect((await exchange({authCode: first.data.openId})).data).toMatchObject({status: 'success', openId: first.data.openId})
    expect(await exchange({authCode: 'made-up'})).toMatchObject({code: 20080, message: 'authCode made-up is unknown: get one by approving an authorization URL'})
  })

  it('answers not_exist for an unknown queryCode, and checks the body', async () => {
    expect((await exchange({authCode: 'x', queryCode: 'Qnope'})).data).toEqual({status: 'not_exist'})
    expect(await exchange({authCode: 'x', queryCode: 'Qnope'}, true)).toMatchObject({code: 20080, message: 'queryCode Qnope is unknown or expired (status not_exist)'})
    const request = buildUnsignedRequest(t.client, unsignedEndpoints.auth, {authCode: 'x'})
    const body: Record<string, unknown> = {...request.body}
    delete body.authCode
    expect((await t.post(unsignedEndpoints.auth.path, body)).body).toEqual({code: 10506, message: 'authCode: is required', data: null})
    expect((await t.post(unsignedEndpoints.auth.path, {...request.body, mchNo: 'M404'})).body).toMatchObject({code: 20023})
    expect((await t.post(unsignedEndpoints.auth.path, '{nope')).body.code).toBe(10505)
    expect(() => buildUnsignedRequest(t.client, unsignedEndpoints.auth, {authCode: 'x', authType: 'walletZ'})).toThrow('invalid input')
  })

  it('auth-and-set answers 20080 while waiting, then null, and a later walletA_jsapi payment may leave openId out', async () => {
    const payJsapi = async (mchNo = t.client.mchNo) => {
      const body: Record<string, unknown> = {
        mchNo,
        reqId: randomBytes(8).toString('hex'),
        nonceStr: randomBytes(8).toString('hex'),
        reqTime: formatGmt8(new Date()),
        bizOrderNo: `P${randomBytes(6).toString('hex')}`,
        title: 'Jsapi',
        amount: 100,
        method: 'walletA_jsapi',
      }
      body.sign = signString(canonicalString(body), t.client.privateKey!)
      return (await t.post(endpoints.pay.path, body)).body
    }
    // a second merchant with the same key: its app has no stored openId
    const other = await t.post('/_sandbox/merchants', {mchNo: 'M2000000002', publicKeyPem: t.sandbox.runtime.merchant.publicKeyPem})
    expect(other.status).toBe(200)
    expect(await payJsapi()).toMatchObject({code: 10506, msg: 'openId: is required for walletA_jsapi'})

    const session = await authUrl()
    expect(await exchange({authCode: 'x', queryCode: session.queryCode}, true)).toMatchObject({code: 20080, message: 'the payer has not authorized yet (status waiting); poll again'})
    await approvedCode(session.queryCode)
    expect(await exchange({authCode: 'x', queryCode: session.queryCode}, true)).toEqual({code: 0, message: 'success', data: null})

    const paid = await payJsapi()
    expect(paid.code).toBe(0)
    expect(paid.data.payBodyType).toBe('jsapi')
    expect((await payJsapi('M2000000002')).code).toBe(10506)
  })

  it('redirects back to an absolute returnPath with the code and the token', async () => {
    const session = await authUrl({returnPath: 'https://shop.example.com/after?step=2'})
    const answer = await approve(session.queryCode)
    expect(answer.status).toBe(303)
    const target = new URL(answer.headers.get('location')!)
    expect(target.origin + target.pathname).toBe('https://shop.example.com/after')
    expect(target.searchParams.get('step')).toBe('2')
    expect(target.searchParams.get('authToken')).toBe(session.authToken)
    const code = target.searchParams.get('authCode')!
    expect((await exchange({authCode: code, authToken: session.authToken})).data.status).toBe('success')
  })
})

describe('session lifetime', () => {
  it('forgets a queryCode after 5 minutes (not_exist) and refuses its token (20080)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-auth-'))
    const store = new Store(join(dir, 'journal.jsonl')).open()
    store.put('merchants', 'M1', {appIds: ['A1'], defaultAppId: 'A1'})
    const clock = {now: Date.UTC(2030, 0, 1)}
    const sessions = new AuthSessions({store, now: () => new Date(clock.now), publicUrl: () => 'http://sandbox'})
    const call = (fields: Record<string, unknown>, set = false) =>
      sessions.unsignedCall('POST', set ? unsignedEndpoints.authAndSet.path : unsignedEndpoints.auth.path, JSON.stringify({mchNo: 'M1', reqId: 'r1', reqTime: '2030-01-01 08:00:00', ...fields}))
    const session = sessions.create({mchNo: 'M1', reqId: 'r', reqTime: ''}, 'A1')
    sessions.approve(sessions.view(session.queryCode) as AuthSession)
    clock.now += AUTH_SESSION_TTL_MS
    expect(call({authCode: 'x', queryCode: session.queryCode})?.data).toMatchObject({status: 'success'})
    clock.now += 1
    expect(call({authCode: 'x', queryCode: session.queryCode})?.data).toEqual({status: 'not_exist'})
    expect(call({authCode: 'x', authToken: session.authToken})).toEqual({
      code: 20080,
      message: `authToken ${session.authToken} has expired (sessions last 5 minutes): generate a new authorization URL`,
      data: null,
    })
    expect(sessions.view(session.queryCode)).toBe('expired')
    expect(sessions.unsignedCall('GET', unsignedEndpoints.auth.path, '')).toBeUndefined()
    store.close()
    removeDir(dir)
  })
})
