// An epay V2 refund without out_refund_no is carried out once, however its `sign` is re-spelled
// (protocol-notes sections 1 and 2): the replay memory keys on the decoded signature bytes and
// only canonical Base64 is taken, also after a restart. The requests are written out as an
// attacker resends a captured one, signed once by an independent signer (jsrsasign).
import {randomBytes} from 'node:crypto'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {epayV2Sign} from '../helpers/sdk.js'
import {removeDir, testSandbox, type TestSandbox} from '../helpers/sandbox.js'

const PID = 'M1000000001'
const V2 = '/epay/api/v2/api/pay/'
const dataDir = mkdtempSync(join(tmpdir(), 'unipay-epay-replay-'))
let t: TestSandbox
let merchantPem = ''

beforeAll(async () => {
  t = await testSandbox({pausedClock: true}, dataDir)
  merchantPem = readFileSync(t.sandbox.runtime.merchant.privateKeyFile, 'utf8')
})
afterAll(async () => {
  await t.close()
  removeDir(dataDir)
})

function signed(params: Record<string, string>): Record<string, string> {
  const all = {pid: PID, ...params, timestamp: String(Math.floor(Date.now() / 1000))}
  return {...all, sign: epayV2Sign(all, merchantPem), sign_type: 'RSA'}
}

async function post(action: string, params: Record<string, string>) {
  const response = await fetch(`${t.sandbox.url}${V2}${action}`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: new URLSearchParams(params).toString()})
  return (await response.json()) as Record<string, any>
}

/** The same signature, spelled the ways lenient Base64 decoders all read as the same bytes. */
function respellings(sign: string): [string, string, string][] {
  const data = sign.replace(/=+$/, '')
  const last = data.length - 1
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  // a 256-byte signature ends in one byte: its last character's low 4 bits are unused
  const flipped = alphabet[alphabet.indexOf(data[last]) ^ 0b0001]
  return [
    ['a trailing newline', `${sign}\n`, 'contains a newline at character 345'],
    ['a trailing space', `${sign} `, 'contains a space at character 345'],
    ['no padding', data, 'lacks its padding: it needs 2 "=" at the end, not 0'],
    ['base64url', Buffer.from(sign, 'base64').toString('base64url'), 'uses the URL-safe alphabet'],
    ['an extra "="', `${sign}=`, 'has 1 "=" too many at the end'],
    ['a junk character', `${sign.slice(0, 100)}*${sign.slice(100)}`, 'contains "*" at character 101, which is not a Base64 character'],
    ['the unused bits of the last character flipped', `${data.slice(0, last)}${flipped}==`, 'has unused bits set in its last character'],
  ]
}

describe('a refund without out_refund_no, its sign re-spelled', () => {
  let outTradeNo = ''
  let request: Record<string, string> = {}

  beforeAll(async () => {
    outTradeNo = `E${randomBytes(6).toString('hex')}`
    const created = await post('create', signed({type: 'walletB', method: 'web', out_trade_no: outTradeNo, name: 'VIP', money: '10.00'}))
    expect(created.code).toBe(0)
    await t.post('/_sandbox/pay', {order: created.trade_no})
    request = signed({out_trade_no: outTradeNo, money: '1.00'})
    expect(request.sign).toMatch(/==$/)
    expect(await post('refund', request)).toMatchObject({code: 0, money: '1.00'})
  })

  const refunded = async () => (await post('query', signed({out_trade_no: outTradeNo}))).refundmoney

  // the names only: the signature is made once the order is paid
  it.each(respellings(`${'A'.repeat(342)}==`).map(([name]) => name))('%s: refused as not canonical Base64, nothing refunded again', async (name) => {
    const [, sign, why] = respellings(request.sign).find(([n]) => n === name)!
    const answer = await post('refund', {...request, sign})
    expect(answer.code).toBe(20052)
    expect(answer.msg).toContain('sign: not canonical Base64 (standard alphabet, padding, no whitespace): it ')
    expect(answer.msg).toContain(why)
    expect(await refunded()).toBe('1.00')
  })

  it('the exact resend is refused, saying the first was carried out and how to resend a refund safely', async () => {
    const answer = await post('refund', request)
    expect(answer.code).toBe(10409)
    expect(answer.msg).toContain('this signed request was already received and carried out')
    expect(answer.msg).toContain('give it an out_refund_no')
    expect(await refunded()).toBe('1.00')
  })

  it('resent with an out_refund_no of whitespace (which the V2 selection leaves out of the signature): refused, nothing refunded again', async () => {
    for (const blank of [' ', '  ', '\t', '\n', '\u3000']) {
      const answer = await post('refund', {...request, out_refund_no: blank})
      expect(answer, JSON.stringify(blank)).toMatchObject({code: 10409, msg: expect.stringContaining('already received and carried out')})
    }
    expect(await refunded()).toBe('1.00')
  })

  it('after a restart, the exact resend and every re-spelling are still refused', async () => {
    await t.close()
    t = await testSandbox({pausedClock: true}, dataDir)
    expect((await post('refund', request)).code).toBe(10409)
    for (const [, sign] of respellings(request.sign)) expect((await post('refund', {...request, sign})).code).toBe(20052)
    expect(await refunded()).toBe('1.00')
  })
})
