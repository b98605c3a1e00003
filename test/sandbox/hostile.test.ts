// Other people's bytes reaching the sandbox (protocol-notes section 1): bodies written out as an
// attacker sends them, signed by an independent signer (jsrsasign) where the signature is what
// would let them through. Each is refused before anything else is done with it, and the
// sandbox goes on answering.
import {mkdtempSync, readFileSync, writeSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {buildRequest} from '../../src/client/pipeline.js'
import {endpoints} from '../../src/protocol/endpoints.js'
import {signMd5} from '../../src/protocol/epay.js'
import type {JournalWrite} from '../../src/sandbox/store.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {rawPage, signIn} from '../helpers/dashboard.js'
import {sdkCommon, sdkSigned, unique} from '../helpers/sdk.js'
import {controlHeaders, removeDir, testSandbox, useTestSandbox, waitFor, type TestSandbox} from '../helpers/sandbox.js'

const t = useTestSandbox()

const pay = (extra: Record<string, unknown> = {}) => ({...sdkCommon(), bizOrderNo: unique('B'), title: 'Coffee', amount: 100, method: 'walletA_qr', ...extra})

/** A body as text, signed by the outside signer over what it flattens to. */
const signedText = (body: Record<string, unknown>) => JSON.stringify(sdkSigned(body, t.merchantPem))

/** The sandbox still answers a signed call properly after the hostile one. */
async function stillServes(): Promise<void> {
  const answer = await t.send(endpoints.pay, {bizOrderNo: unique('B'), title: 'After', amount: 100, method: 'walletA_qr'})
  expect(answer.code).toBe(0)
}

describe('a number built to cost', () => {
  it('answers 1e-10000000 with 10505 at once, before the signature is looked at, and goes on serving', async () => {
    // 300 bytes: written out, this number is ten million characters long
    const text = `{"mchNo":"M1000000001","reqId":"R1","reqTime":"${formatGmt8(new Date())}","nonceStr":"n1","bizOrderNo":"B1","title":"T","amount":1e-10000000,"method":"walletA_qr","sign":"AAAA"}`
    const answer = await t.post(endpoints.pay.path, text)
    expect(answer.body.code).toBe(10505)
    expect(answer.body.msg).toMatch(/number 1e-10000000 written out would be over 100 characters/)
    await stillServes()
  })

  it('refuses a 101-character integer and takes a 100-character one to the signature check', async () => {
    const digits = (n: number) => `1${'0'.repeat(n - 1)}`
    const over = await t.post(endpoints.pay.path, signedText(pay()).replace('"amount":100', `"amount":${digits(101)}`))
    expect(over.body.code).toBe(10505)
    const within = await t.post(endpoints.pay.path, signedText(pay()).replace('"amount":100', `"amount":${digits(100)}`))
    // parsed, then refused because it is not what was signed
    expect(within.body.code).toBe(20052)
  })
})

describe('the request log, fed by anyone', () => {
  it('keeps at most 8 KiB of a refused request\'s message and string to sign, however large the body (900 KB, no valid signature)', async () => {
    // 300 of these held 700 MB in the sandbox's log of the last 5,000 requests
    const title = 'x'.repeat(900_000)
    const text = `{"mchNo":"M1000000001","reqId":"${unique('R')}","reqTime":"${formatGmt8(new Date())}","bizOrderNo":"B1","title":"${title}","amount":1,"method":"walletA_qr","sign":"AAAA"}`
    const answer = await t.post(endpoints.pay.path, text)
    expect(answer.body.code).toBe(20052)
    // the answer clips it too, saying its full length (protocol-notes section 2): 900 KB asked
    // for 900 KB back, and a body of keys repeated under 500 values for 32 Mi characters
    expect(answer.body.msg.length).toBeLessThan(8300)
    expect(answer.body.msg).toMatch(/^signature verification failed; server string to sign: amount=1&bizOrderNo=B1&.{8100,8192}\.\.\. \(900\d{3} characters in all\)$/)
    const runtime = t.sandbox.runtime
    const {entries} = (await (await fetch(`${runtime.url}/_sandbox/requests?after=0&failed=true&limit=5000`, {headers: controlHeaders(runtime)})).json()) as {entries: {code?: string; message?: string; signature?: {stringToSign: string}}[]}
    const entry = entries.findLast((e) => e.code === '20052' && e.signature?.stringToSign.startsWith('amount=1&bizOrderNo=B1'))!
    expect(entry.signature!.stringToSign).toMatch(/^amount=1&bizOrderNo=B1&.{8100,8192}\.\.\. \(\d{6} characters in all\)$/)
    expect(entry.message!.length).toBeLessThan(8300)
    expect(entry.message).toMatch(/\.\.\. \(\d+ characters in all\)$/)
  })

  it('keeps at most 8 KiB of a field name, a merchant read from a form body and a path (900 KB each, no valid signature)', async () => {
    const runtime = t.sandbox.runtime
    const logged = async () =>
      ((await (await fetch(`${runtime.url}/_sandbox/requests?after=0&limit=5000`, {headers: controlHeaders(runtime)})).json()) as {entries: {path: string; merchant?: string; signature?: {fields: string[]}}[]}).entries
    // a field name: the string to sign covers every top-level field the request sends
    const name = `k${'y'.repeat(900_000)}`
    const text = `{"mchNo":"M1000000001","reqId":"${unique('R')}","reqTime":"${formatGmt8(new Date())}","bizOrderNo":"B1","title":"T","amount":1,"method":"walletA_qr","${name}":"1","sign":"AAAA"}`
    expect((await t.post(endpoints.pay.path, text)).body.code).toBe(20052)
    // a merchant an epay form body names: pid=MMM...
    const pid = 'M'.repeat(900_000)
    await fetch(`${runtime.url}/epay/api/v1/submit.php`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: `pid=${pid}&sign=x`})
    // a path: as long as the request line may be (Node takes 16 KB of headers)
    const path = `/p${'a'.repeat(15_000)}`
    expect((await fetch(`${runtime.url}${path}`)).status).toBe(404)
    const entries = await logged()
    // lengths and ends only: a failure should not print 900 KB
    const cut = (text: string | undefined) => [text?.length, text?.slice(-32)]
    const field = entries.findLast((e) => e.signature?.fields.some((f) => f.startsWith('kyyy')))!.signature!.fields.find((f) => f.startsWith('kyyy'))
    expect(cut(field)).toEqual([8192 + 30, `yyyyyy... (900001 characters in all)`.slice(-32)])
    expect(cut(entries.findLast((e) => e.merchant?.startsWith('MMM'))!.merchant)).toEqual([8192 + 30, `MMMMMM... (900000 characters in all)`.slice(-32)])
    expect(cut(entries.findLast((e) => e.path.startsWith('/paaa'))!.path)).toEqual([8192 + 29, `aaaaaaaaaaa... (15002 characters in all)`.slice(-32)])
  })

  it('keeps at most 8 KiB of a refused request\'s field names in all, however many long ones it has (60 names of 8,190 characters)', async () => {
    // 900 of these (980 KB each, no valid signature) held 1.1 GB: 64 names of 8 KiB were kept per entry
    const fields = Array.from({length: 60}, (_, i) => `"${String(i).padStart(2, '0')}${'\u0101'.repeat(8190)}":"v"`).join(',')
    const text = `{"mchNo":"M1000000001","reqId":"${unique('R')}","reqTime":"${formatGmt8(new Date())}","amount":1,${fields},"sign":"AAAA"}`
    expect((await t.post(endpoints.pay.path, text)).body.code).toBe(20052)
    const runtime = t.sandbox.runtime
    const {entries} = (await (await fetch(`${runtime.url}/_sandbox/requests?after=0&failed=true&limit=5000`, {headers: controlHeaders(runtime)})).json()) as {entries: {signature?: {fields: string[]}}[]}
    // the names sort digits first: 00ā..., 01ā..., then amount, mchNo, reqId, reqTime
    const kept = entries.findLast((e) => e.signature?.fields[0]?.startsWith('00\u0101'))!.signature!.fields
    expect(kept.join('').length).toBeLessThan(8300)
    expect(kept.at(-1)).toBe('... (64 fields in all)')
  })
})

describe('a body whose string to sign is built to cost', () => {
  it('answers 10505 before flattening it (24 KB flattening to 40 million characters), and goes on serving', async () => {
    // the key is repeated for each of the 10,000 values under it; at 20,000 by 25,000 (70 KB) the
    // flattening ran the sandbox out of memory, before any signature was looked at
    const costly = `"${'k'.repeat(4000)}":[${Array.from({length: 10_000}, () => '1').join(',')}]`
    const text = `{"mchNo":"M1000000001","reqId":"R1","reqTime":"${formatGmt8(new Date())}","nonceStr":"n1",${costly},"sign":"AAAA"}`
    const answer = await t.post(endpoints.pay.path, text)
    expect(answer.body.code).toBe(10505)
    expect(answer.body.msg).toBe('request body: its string to sign would be over 33554432 characters (each value repeats its whole key): refused')
    await stillServes()
  })
})

describe('a large body with a bad signature', () => {
  it('answers 20052 at once: the diagnosis of someone else\'s body is bounded (it was quadratic in its fields)', async () => {
    // 20,000 fields, about 250 KB: one "field dropped" variant per field was 20,000 strings of 250 KB
    const fields = Object.fromEntries(Array.from({length: 20_000}, (_, i) => [`k${i}`, 'v']))
    const answer = await t.post(endpoints.pay.path, JSON.stringify({...pay(), ...fields, sign: 'AAAA'}))
    expect(answer.body.code).toBe(20052)
    await stillServes()
  })

  it('answers 20052 at once for a body under the diagnosis size bound with thousands of numbers (each tried in another form was quadratic)', async () => {
    // 4,000 numbers in 55 KB: "signed as yuan, sent as cents" tried per number took over a minute
    const numbers = Object.fromEntries(Array.from({length: 4_000}, (_, i) => [`n${i}`, 12345]))
    const answer = await t.post(endpoints.pay.path, JSON.stringify({...pay(), ...numbers, sign: 'AAAA'}))
    expect(answer.body.code).toBe(20052)
    await stillServes()
  })

  it('still names the cause for a body of ordinary size', async () => {
    // signed without nonceStr, sent with it: the diagnosis of a dropped field still runs
    const {nonceStr, ...unsigned} = pay()
    const text = JSON.stringify({...sdkSigned(unsigned, t.merchantPem), nonceStr})
    const answer = await t.post(endpoints.pay.path, text)
    expect(answer.body.code).toBe(20052)
  })
})

describe('a megabyte of empty arrays nested 500 deep', () => {
  it('answers 20052 naming the few fields it signs, does not diagnose 500,000 arrays, and goes on serving', async () => {
    // a sign of the right form and length, so the body goes all the way to the signature check;
    // its string to sign is four fields: empty arrays flatten to nothing, however deep. It cost
    // the sandbox 0.15 to 3 s (JSON.parse reads it in 0.09 s): the key of every level written out
    // (500 deep, quadratic), the diagnosis trying 20 rewritings of the whole body; `npm run bench`
    // measures it against JSON.parse, which a test must not time
    const nest = `${'['.repeat(500)}${']'.repeat(500)}`
    const head = `{"mchNo":"M1000000001","reqId":"${unique('R')}","reqTime":"${formatGmt8(new Date())}","sign":"${'A'.repeat(342)}==","x":[`
    const text = `${head}${Array.from({length: 1040}, () => nest).join(',')}]}`
    expect(text.length).toBeGreaterThan(1_040_000)
    const answer = await t.post(endpoints.pay.path, text)
    expect(answer.body.code).toBe(20052)
    expect(answer.body.msg).toMatch(/^signature verification failed; server string to sign: mchNo=M1000000001&reqId=R\w+&reqTime=[\d-]+ [\d:]+$/)
    const runtime = t.sandbox.runtime
    const {entries} = (await (await fetch(`${runtime.url}/_sandbox/requests?after=0&failed=true&limit=5000`, {headers: controlHeaders(runtime)})).json()) as {entries: {signature?: {fields: string[]; causes: string[]}}[]}
    const entry = entries.findLast((e) => e.signature?.fields.join() === 'mchNo,reqId,reqTime')!
    expect(entry.signature!.causes).toEqual(['not diagnosed: the body holds over 10000 values (key mismatch, or the body changed after signing)'])
    await stillServes()
  })
})

describe('keys that flatten like nested fields', () => {
  it('refuses a top-level key with a dot, signed correctly, with 10506 and creates nothing', async () => {
    const bizOrderNo = unique('B')
    // flattens exactly like {"goodsDetail": [{"goodsId": ...}]}: the same string to sign
    const body = pay({bizOrderNo, 'goodsDetail[0].goodsId': 'G1'})
    const answer = await t.post(endpoints.pay.path, signedText(body))
    expect(answer.body).toMatchObject({code: 10506})
    expect(answer.body.msg).toMatch(/"goodsDetail\[0\]\.goodsId" holds "\.", "\[" or "\]"/)
    const queried = await t.send(endpoints.queryPay, {bizOrderNo})
    expect(queried.code).toBe(20041)
  })

  it('refuses a nested key with a bracket', async () => {
    const answer = await t.post(endpoints.pay.path, signedText(pay({terminal: {'terminalNo]': 'T1'}})))
    expect(answer.body.code).toBe(10506)
    expect(answer.body.msg).toMatch(/^terminal\.terminalNo\]: /)
  })
})

describe('a __proto__ key', () => {
  it('is refused (10506): a JavaScript reader would take its fields as inherited ones', async () => {
    // no amount of its own: an assignment-based reader would find one on the prototype
    const {amount: _amount, ...withoutAmount} = pay()
    const answer = await t.post(endpoints.pay.path, signedText({...withoutAmount, ['__proto__']: {amount: 100}}))
    expect(answer.body.code).toBe(10506)
    expect(answer.body.msg).toMatch(/^__proto__: the key "__proto__" is refused/)
  })
})

describe('unpaired surrogates', () => {
  // UTF-8 cannot carry a lone surrogate: encoders write U+FFFD instead, so the signature of
  // "Coffee\uFFFD" would also hold for a different request whose title is "Coffee\ud800"
  const withLone = (field: 'key' | 'value', lone: string) => {
    const signed = sdkSigned(pay(field === 'value' ? {title: 'Coffee\uFFFD'} : {['x\uFFFD']: 'y'}), t.merchantPem)
    return JSON.stringify(signed).replace('\uFFFD', lone)
  }

  it('refuses a value holding a lone high surrogate (sent as the JSON escape)', async () => {
    const answer = await t.post(endpoints.pay.path, withLone('value', '\\ud800'))
    expect(answer.body.code).toBe(10506)
    expect(answer.body.msg).toMatch(/^title: holds an unpaired UTF-16 surrogate/)
  })

  it('refuses a key holding a lone low surrogate, and keeps a proper pair', async () => {
    const answer = await t.post(endpoints.pay.path, withLone('key', '\\udc00'))
    expect(answer.body.code).toBe(10506)
    expect(answer.body.msg).toMatch(/^x.: the key holds an unpaired UTF-16 surrogate/)
    const paired = await t.post(endpoints.pay.path, signedText(pay({title: 'Coffee \ud83d\ude80'})))
    expect(paired.body.code).toBe(0)
  })
})

describe('reqTime', () => {
  it('answers a time no clock shows (2026-13-40 99:99:99) with 10506, not 10410', async () => {
    const answer = await t.post(endpoints.pay.path, signedText(pay({reqTime: '2026-13-40 99:99:99'})))
    expect(answer.body.code).toBe(10506)
    expect(answer.body.msg).toBe('reqTime: 2026-13-40 99:99:99 is not a time (yyyy-MM-dd HH:mm:ss, GMT+8)')
  })
})

describe('addresses the sandbox would call or show', () => {
  const port = () => new URL(t.sandbox.url).port
  it.each([
    ['notifyUrl', () => `http://127.0.0.1:${port()}/dashboard`, 'must not point at the sandbox itself'],
    ['notifyUrl', () => `http://localhost:${port()}/_sandbox/pay`, 'must not point at the sandbox itself'],
    ['notifyUrl', () => `http://[::1]:${port()}/x`, 'must not point at the sandbox itself'],
    ['notifyUrl', () => `http://2130706433:${port()}/x`, 'must not point at the sandbox itself'],
    ['returnUrl', () => `http://127.0.0.2:${port()}/x`, 'must not point at the sandbox itself'],
    ['notifyUrl', () => 'http://user:secret@shop.example.com/notify', 'must not carry a user name or password'],
    ['returnUrl', () => 'https://bank.example.com@shop.example.com/', 'must not carry a user name or password'],
    // this machine by a name: its own hostname resolves here (/etc/hosts, or the resolver's files)
    ['notifyUrl', () => `http://${hostname()}:${port()}/dashboard`, 'must not point at the sandbox itself'],
    ['returnUrl', () => `http://${hostname().toUpperCase()}:${port()}/x`, 'must not point at the sandbox itself'],
    // what the platform cannot read: refused as before, with the reason
    ['notifyUrl', () => 'http://127.0.0.1:99999/x', 'is not a URL: its port 99999 is out of range (0 to 65535)'],
    ['notifyUrl', () => 'http://[::1', 'is not a URL: its host is not a name or an address'],
  ])('refuses %s %s', async (field, url, message) => {
    const answer = await t.post(endpoints.pay.path, signedText(pay({[field]: url()})))
    expect(answer.body).toMatchObject({code: 10506, msg: `${field}: ${message}${message.endsWith('itself') ? ` (127.0.0.1:${port()})` : ''}`})
  })

  it('refuses a transfer notifyUrl at the sandbox, and a triggered callback to it', async () => {
    const transfer = {...sdkCommon(), channel: 'walletB', channelMchNo: 'CM_SANDBOX', bizTransferNo: unique('BT'), amount: 1, payeeType: 'user_id', payeeAccount: 'u1'}
    const refund = await t.post(endpoints.transfer.path, signedText({...transfer, notifyUrl: `http://127.0.0.1:${port()}/dashboard`}))
    expect(refund.body).toMatchObject({code: 10506, msg: expect.stringMatching(/^notifyUrl: must not point at the sandbox itself/)})
    const trigger = await t.post('/_sandbox/trigger', {event: 'pay.success', notifyUrl: `http://localhost:${port()}/dashboard`, mchNo: 'M1000000001'})
    expect(trigger).toMatchObject({status: 400, body: {code: 10506, message: expect.stringMatching(/^notifyUrl: must not point at the sandbox itself/)}})
  })

  it('takes another port on this machine, as a merchant app beside the sandbox has, by address or by name', async () => {
    const other = Number(port()) === 65535 ? 1 : Number(port()) + 1
    for (const notifyUrl of [`http://127.0.0.1:${other}/notify`, `http://localhost:${other}/notify`, `http://${hostname()}:${other}/notify`]) {
      const answer = await t.post(endpoints.pay.path, signedText(pay({notifyUrl})))
      expect(answer.body.code, notifyUrl).toBe(0)
    }
  })

  it('leaves a name that does not resolve to delivery, at the sandbox\'s own port too (looked up a second at most)', async () => {
    // .invalid never resolves (RFC 2606): with a resolver or without, it is no one's address
    const answer = await t.post(endpoints.pay.path, signedText(pay({notifyUrl: `http://unipay-test.invalid:${port()}/notify`})))
    expect(answer.body.code).toBe(0)
  })

  it('refuses the sandbox by its machine\'s name in an epay notify_url and a triggered callback too', async () => {
    const own = `http://${hostname()}:${port()}/dashboard`
    const trigger = await t.post('/_sandbox/trigger', {event: 'pay.success', notifyUrl: own, mchNo: 'M1000000001'})
    expect(trigger).toMatchObject({status: 400, body: {code: 10506, message: expect.stringMatching(/^notifyUrl: must not point at the sandbox itself/)}})
    const params = {pid: 'M1000000001', type: 'alipay', out_trade_no: unique('E'), notify_url: own, name: 'VIP', money: '1.00'}
    const md5Key = readFileSync(t.sandbox.runtime.merchant.md5KeyFile!, 'utf8').trim()
    const form = new URLSearchParams({...params, sign: signMd5(params, md5Key), sign_type: 'MD5'})
    const answer = await fetch(`${t.sandbox.url}/epay/api/v1/mapi.php`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: form})
    expect(await answer.json()).toMatchObject({code: -1, msg: expect.stringMatching(/^notify_url: must not point at the sandbox itself/)})
  })
})

describe('a full disk under the journal', () => {
  /** A disk of `budget` bytes more (Infinity: unbounded), which takes at most `chunk` bytes per write. */
  function disk(chunk = Number.POSITIVE_INFINITY) {
    const state = {budget: Number.POSITIVE_INFINITY, calls: 0}
    const write: JournalWrite = (fd, buffer, offset, length) => {
      state.calls++
      if (state.budget <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'})
      const taken = Math.min(length, chunk, state.budget)
      state.budget -= taken
      return writeSync(fd, buffer, offset, taken)
    }
    return {state, write}
  }
  const payFields = (bizOrderNo: string) => ({bizOrderNo, title: 'Coffee', amount: 100, method: 'walletA_qr'})

  it('carries on after short writes: every acknowledged order is there after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-short-'))
    const {state, write} = disk(7)
    const first = await testSandbox({journalWrite: write, log: () => {}}, dir)
    const acknowledged: string[] = []
    for (let i = 0; i < 5; i++) {
      const answer = await first.send(endpoints.pay, payFields(`SHORT-${i}`))
      expect(answer.code).toBe(0)
      acknowledged.push(answer.data.orderNo)
    }
    await first.close()
    const second = await testSandbox({log: () => {}}, dir)
    try {
      for (const orderNo of acknowledged) expect((await second.send(endpoints.queryPay, {orderNo})).code).toBe(0)
      // the disk took a few bytes per write, so every line needed many
      expect(state.calls).toBeGreaterThan(50)
    } finally {
      await second.close()
      removeDir(dir)
    }
  })

  it('refuses the request whose write fails (a short write, then ENOSPC), loses nothing acknowledged, and a settle timer hitting it does not crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-full-'))
    const {state, write} = disk()
    const failures: string[] = []
    let failed: () => void = () => {}
    const reported = new Promise<void>((resolve) => (failed = resolve))
    const first = await testSandbox({journalWrite: write, log: () => {}, onJournalFailure: (message) => {
      failures.push(message)
      failed()
    }}, dir)
    const acknowledged: string[] = []
    let refusal: {status: number; body: Record<string, any>} | undefined
    // a disk with room for a few orders: the write that does not fit is cut short, then ENOSPC
    state.budget = 4000
    for (let i = 0; i < 50 && !refusal; i++) {
      const request = await buildRequest(first.client, endpoints.pay, payFields(`FULL-${i}`))
      const answer = await first.post(endpoints.pay.path, request.body)
      if (answer.body.code === 0) acknowledged.push(answer.body.data.orderNo)
      else refusal = answer
    }
    expect(acknowledged.length).toBeGreaterThan(2)
    expect(refusal?.status).toBe(500)
    expect(refusal?.body.code).not.toBe(0)
    expect(refusal?.body.message).toMatch(/could not be written \(ENOSPC\)/)
    await reported
    expect(failures).toHaveLength(1)
    // a later request is refused too, with the same reason, and the process is still here
    const later = await first.post(endpoints.queryPay.path, (await buildRequest(first.client, endpoints.queryPay, {orderNo: acknowledged[0]})).body)
    expect(later.status).toBe(500)
    await first.close()

    const logged: string[] = []
    const second = await testSandbox({log: (line) => logged.push(line)}, dir)
    try {
      for (const orderNo of acknowledged) expect((await second.send(endpoints.queryPay, {orderNo})).code).toBe(0)
      // the short write was cut back to the last complete line at once
      expect(logged).toEqual([])
    } finally {
      await second.close()
    }

    // a refund in progress when the disk fills: its settle timer meets the failure, not a crash.
    // The clock stands still until the disk is full (moving it by a control call would write the
    // journal), then moves past the settlement, due 1 s after the refund.
    const frozen = Date.now()
    let moved = 0
    const third = await testSandbox({journalWrite: write, now: () => new Date(frozen + moved), log: () => {}, onJournalFailure: () => failed()}, dir)
    state.budget = Number.POSITIVE_INFINITY
    const paid = await third.send(endpoints.pay, payFields('FULL-REFUND'))
    await third.post('/_sandbox/pay', {order: paid.data.orderNo})
    const refund = await third.send(endpoints.refund, {tradeNo: paid.data.tradeNo, amount: 100, bizRefundNo: 'FULL-R1'})
    expect(refund.data.status).toBe('progress')
    const timerFailed = new Promise<void>((resolve) => (failed = resolve))
    state.budget = 0
    moved = 60_000
    await timerFailed
    await third.close()
    const fourth = await testSandbox({log: () => {}}, dir)
    try {
      // acknowledged in progress; its settlement never reached the journal, so it was never told
      expect((await fourth.send(endpoints.queryRefund, {bizRefundNo: 'FULL-R1'})).data.status).toBe('progress')
    } finally {
      await fourth.close()
      removeDir(dir)
    }
  })
})

describe('the dashboard without the control secret', () => {
  /** A same-origin form post from the dashboard's own page, as a browser sends it, but without the sign-in cookie. */
  const formPost = (on: TestSandbox, host: string, body: string, extra: Record<string, string> = {}) => {
    const {port} = new URL(on.sandbox.url)
    return rawPage(port, 'POST', '/dashboard', body, {host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded', ...extra})
  }
  const openOrder = async (on: TestSandbox) => (await on.send(endpoints.pay, {bizOrderNo: unique('D'), title: 'Tea', amount: 100, method: 'walletA_qr'})).data.orderNo as string

  it('refuses to act (403) on loopback, and acts once signed in through the sandbox open ticket', async () => {
    const orderNo = await openOrder(t)
    const host = `127.0.0.1:${new URL(t.sandbox.url).port}`
    const refused = await formPost(t, host, `action=pay&id=${orderNo}`)
    expect(refused.status).toBe(403)
    expect(refused.text).toContain('open it with `unipay sandbox open`')
    expect((await rawPage(new URL(t.sandbox.url).port, 'GET', '/dashboard', '', {host})).status).toBe(403)
    expect((await t.send(endpoints.queryPay, {orderNo})).data.status).toBe('progress')
    // a ticket is good once
    const {body} = await t.post('/_sandbox/dashboard/ticket', {})
    expect((await rawPage(new URL(t.sandbox.url).port, 'GET', `/dashboard?ticket=${body.ticket}`, '', {host})).status).toBe(303)
    expect((await rawPage(new URL(t.sandbox.url).port, 'GET', `/dashboard?ticket=${body.ticket}`, '', {host})).status).toBe(403)
    const cookie = await signIn(t)
    expect((await formPost(t, host, `action=pay&id=${orderNo}`, {cookie})).status).toBe(303)
    expect((await t.send(endpoints.queryPay, {orderNo})).data.status).toBe('success')
  })

  it('refuses a ticket from anyone without the control secret', async () => {
    const {port} = new URL(t.sandbox.url)
    const answer = await rawPage(port, 'POST', '/_sandbox/dashboard/ticket', '{}', {host: `127.0.0.1:${port}`, 'content-type': 'application/json'})
    expect(answer.status).toBe(403)
  })

  it('refuses to act beyond loopback (--host 0.0.0.0), where no Host check applies', async () => {
    const wide = await testSandbox({host: '0.0.0.0', log: () => {}})
    try {
      const orderNo = await openOrder(wide)
      // anyone on the network, by whatever name reaches the machine
      const refused = await formPost(wide, `sandbox.lan:${new URL(wide.sandbox.url).port}`, `action=pay&id=${orderNo}`)
      expect(refused.status).toBe(403)
      expect((await wide.send(endpoints.queryPay, {orderNo})).data.status).toBe('progress')
    } finally {
      await wide.close()
      removeDir(wide.dataDir)
    }
  })
})

describe('a callback receiver that answers with a redirect', () => {
  it('is not followed: the redirect cannot send the callback into the sandbox (here: confirm a waiting walletA transfer)', async () => {
    const transfer = await t.send(endpoints.transfer, {channel: 'walletA', channelMchNo: 'CM_SANDBOX', bizTransferNo: unique('BT'), amount: 100, payeeType: 'openid', payeeAccount: 'o1'})
    const {confirmUrl, transferNo} = transfer.data
    expect(confirmUrl).toContain('/transfer/confirm/')
    // the merchant's notify address, under someone else's control, points the callback back in
    const receiver = createServer((req, res) => {
      req.resume()
      res.writeHead(307, {location: confirmUrl}).end()
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()))
    try {
      const notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`
      const order = await t.send(endpoints.pay, {bizOrderNo: unique('B'), title: 'Tea', amount: 100, method: 'walletA_qr', notifyUrl})
      await t.post('/_sandbox/pay', {order: order.data.orderNo})
      const attempted = await waitFor(async () => {
        const list = (await (await fetch(`${t.sandbox.url}/_sandbox/notifications`, {headers: controlHeaders(t.sandbox.runtime)})).json()) as {url: string; attempts: {httpStatus?: number}[]}[]
        return list.find((n) => n.url === notifyUrl && n.attempts.length > 0)
      })
      expect(attempted.attempts[0].httpStatus).toBe(307)
      expect((await t.send(endpoints.queryTransfer, {transferNo})).data.status).toBe('processing')
    } finally {
      receiver.close()
    }
  })
})
