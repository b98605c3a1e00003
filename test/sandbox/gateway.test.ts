import {randomBytes} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {buildRequest} from '../../src/client/pipeline.js'
import {canonicalString} from '../../src/protocol/canonical.js'
import {endpoints} from '../../src/protocol/endpoints.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {signString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {GatewayService, type GatewayOrder} from '../../src/sandbox/gateway.js'
import type {Notifier} from '../../src/sandbox/notifier.js'
import {Store} from '../../src/sandbox/store.js'
import {PayService} from '../../src/sandbox/pay.js'
import {removeDir, testSandbox, useCallbackReceiver, useTestSandbox, waitFor} from '../helpers/sandbox.js'

const t = useTestSandbox()
const receiver = useCallbackReceiver()

const bizNo = () => `G${randomBytes(6).toString('hex')}`
const order = (extra: Record<string, unknown> = {}) => ({bizOrderNo: bizNo(), title: 'Coffee', amount: 100, gatewayPayType: 'cashier', ...extra})
const prePay = (extra: Record<string, unknown> = {}) => t.send(endpoints.gatewayPrePay, order(extra))
const query = (ref: Record<string, unknown>) => t.send(endpoints.queryGateway, ref)

/** Signs a body the client would refuse to send, to see the sandbox's own checks. */
async function sendUnchecked(path: string, fields: Record<string, unknown>) {
  const body: Record<string, unknown> = {
    mchNo: t.client.mchNo,
    reqId: randomBytes(8).toString('hex'),
    nonceStr: randomBytes(8).toString('hex'),
    reqTime: formatGmt8(new Date()),
    ...fields,
  }
  body.sign = signString(canonicalString(body), t.client.privateKey!)
  return (await t.post(path, body)).body
}

/** What a browser does on the pages: a form POST, redirects not followed. */
async function form(path: string, fields: Record<string, string> = {}, userAgent = 'Mozilla/5.0') {
  const response = await fetch(`${t.sandbox.url}${path}`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded', 'user-agent': userAgent},
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })
  return {status: response.status, location: response.headers.get('location'), text: await response.text()}
}

async function page(path: string, userAgent = 'Mozilla/5.0') {
  const response = await fetch(`${t.sandbox.url}${path}`, {headers: {'user-agent': userAgent}, redirect: 'manual'})
  return {status: response.status, location: response.headers.get('location'), type: response.headers.get('content-type'), text: await response.text()}
}

describe('gateway pre-pay', () => {
  it('creates a wait_pay order with page links under the sandbox address for each type', async () => {
    const cashier = await prePay()
    expect(cashier.code).toBe(0)
    expect(cashier.data).toMatchObject({status: 'wait_pay', gatewayType: 'cashier'})
    expect(cashier.data.orderNo).toMatch(/^GW\d{20}$/)
    expect(cashier.data.h5Url).toBe(`${t.sandbox.url}/cashier/${cashier.data.orderNo}`)
    expect(cashier.data.miniUrl).toBe(`${t.sandbox.url}/cm/${cashier.data.orderNo}`)
    const aggregate = await prePay({gatewayPayType: 'aggregate'})
    expect(aggregate.data.h5Url).toBe(`${t.sandbox.url}/aggregate/${aggregate.data.orderNo}`)
    expect(aggregate.data.miniUrl).toBe(`${t.sandbox.url}/am/${aggregate.data.orderNo}`)
  })

  it('expires after 30 minutes by default', async () => {
    // a sandbox whose clock stands still: the default is exact, however long the call takes
    const at = Math.floor(Date.now() / 1000) * 1000
    const own = await testSandbox({now: () => new Date(at)})
    try {
      const created = await own.send(endpoints.gatewayPrePay, order())
      expect(new Date(`${created.data.expiredTime.replace(' ', 'T')}+08:00`).getTime()).toBe(at + 30 * 60 * 1000)
    } finally {
      await own.close()
      removeDir(own.dataDir)
    }
  })

  it('is idempotent on bizOrderNo, answers the effective gatewayType, and refuses other parameters (10507)', async () => {
    const fields = order()
    const first = await t.send(endpoints.gatewayPrePay, fields)
    const again = await t.send(endpoints.gatewayPrePay, fields)
    expect(again.data).toEqual(first.data)
    const otherType = await t.send(endpoints.gatewayPrePay, {...fields, gatewayPayType: 'aggregate'})
    expect(otherType.data).toMatchObject({orderNo: first.data.orderNo, gatewayType: 'cashier', h5Url: first.data.h5Url})
    const conflicting = await t.send(endpoints.gatewayPrePay, {...fields, amount: 200})
    expect(conflicting).toMatchObject({code: 10507, msg: `bizOrderNo ${fields.bizOrderNo} was already used with different parameters`})
  })

  it('keeps gateway orders apart from payment orders, in one bizOrderNo space', async () => {
    const gatewayOrder = await prePay()
    const payOrder = await t.send(endpoints.pay, {bizOrderNo: bizNo(), title: 'Coffee', amount: 100})
    expect(payOrder.code).toBe(0)
    expect((await t.send(endpoints.queryPay, {orderNo: gatewayOrder.data.orderNo})).code).toBe(20041)
    expect((await query({orderNo: payOrder.data.orderNo})).code).toBe(20041)
    expect((await t.send(endpoints.pay, {bizOrderNo: gatewayOrder.data.bizOrderNo, title: 'Coffee', amount: 100})).code).toBe(10507)
    expect((await query({bizOrderNo: gatewayOrder.data.bizOrderNo})).data.orderNo).toBe(gatewayOrder.data.orderNo)
  })

  it.each([
    [{gatewayPayType: undefined}, 'gatewayPayType: is required'],
    [{gatewayPayType: 'qr'}, 'gatewayPayType: must be cashier or aggregate'],
    [{amount: 0}, 'amount: must be at least 1'],
    [{amount: 10_000_000_000}, 'amount: must be at most 9999999999'],
    [{title: undefined}, 'title: is required'],
    [{notifyUrl: `https://shop.example.com/${'n'.repeat(233)}`}, 'notifyUrl: must be at most 256 characters'],
    [{returnUrl: 'shop.example.com/back'}, 'returnUrl: must be an http(s) URL'],
    [{attach: 'a'.repeat(513)}, 'attach: must be at most 512 characters'],
    [{extraParam: '{not json'}, 'extraParam: must be JSON text'],
    [{expiredTime: '2030-01-01T00:00:00'}, 'expiredTime: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'],
    [{storeNo: 's'.repeat(65)}, 'storeNo: must be at most 64 characters'],
    [{goodsDetail: [{goodsName: 'Tea', quantity: 1, unitPrice: 100}]}, 'goodsDetail[0].goodsId: is required'],
    [{allocation: 'yes'}, 'allocation: '],
  ])('answers 10506 naming the field: %j', async (change, message) => {
    const fields: Record<string, unknown> = {...order(), ...change}
    for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key]
    const answer = await sendUnchecked(endpoints.gatewayPrePay.path, fields)
    expect(answer.code).toBe(10506)
    expect(answer.msg.startsWith(message)).toBe(true)
  })

  it('accepts the longest values the spec allows', async () => {
    const answer = await prePay({
      notifyUrl: `https://shop.example.com/${'n'.repeat(231)}`,
      attach: 'a'.repeat(512),
      storeNo: 's'.repeat(64),
      extraParam: JSON.stringify({note: 'x'.repeat(2030)}),
      goodsDetail: [{goodsId: 'G1', goodsName: 'Tea', quantity: 2, unitPrice: 50}],
      allocation: true,
      currency: 'cny',
      description: 'd'.repeat(50),
    })
    expect(answer.code).toBe(0)
  })

  it('refuses an expiredTime in the past', async () => {
    const answer = await prePay({expiredTime: formatGmt8(new Date(Date.now() - 60_000))})
    expect(answer).toMatchObject({code: 10506, msg: 'expiredTime: must be in the future'})
  })
})

describe('gateway query', () => {
  it('answers the GatewayOrderResult fields the order has (absent ones left out), by orderNo or bizOrderNo, orderNo first', async () => {
    const a = await prePay({attach: 'a1', returnUrl: 'https://shop.example.com/back', description: 'Latte'})
    const b = await prePay()
    const byOrderNo = await query({orderNo: a.data.orderNo, bizOrderNo: b.data.bizOrderNo})
    expect(Object.keys(byOrderNo.data).sort()).toEqual(
      [
        'orderNo', 'bizOrderNo', 'gatewayType', 'title', 'description', 'amount', 'currency', 'status', 'expiredTime',
        'fundStatus', 'attach', 'returnUrl',
      ].sort(),
    )
    expect(byOrderNo.data).toMatchObject({
      orderNo: a.data.orderNo,
      gatewayType: 'cashier',
      title: 'Coffee',
      description: 'Latte',
      amount: 100,
      currency: 'cny',
      status: 'wait_pay',
      fundStatus: 'init',
      attach: 'a1',
      returnUrl: 'https://shop.example.com/back',
    })
    expect(Object.values(byOrderNo.data)).not.toContain(null)
    expect((await query({bizOrderNo: b.data.bizOrderNo})).data.orderNo).toBe(b.data.orderNo)
  })

  it('answers 20041 for an unknown order and 10506 without a reference or with a too long orderNo', async () => {
    expect((await query({orderNo: 'GW0'})).code).toBe(20041)
    expect(await sendUnchecked(endpoints.queryGateway.path, {})).toMatchObject({code: 10506, msg: 'orderNo: one of orderNo / bizOrderNo is required'})
    expect(await sendUnchecked(endpoints.queryGateway.path, {orderNo: 'G'.repeat(65)})).toMatchObject({code: 10506, msg: 'orderNo: must be at most 64 characters'})
  })
})

describe('the payer on the cashier page', () => {
  it('picks walletA (paying, locked), pays (paid) and sends pay.success with the order flattened', async () => {
    const created = await prePay({notifyUrl: receiver.url, attach: 'cart-7'})
    const {orderNo} = created.data
    const listed = await page(`/cashier/${orderNo}`)
    for (const method of ['walletA_h5', 'walletB_h5', 'walletC_h5', 'walletD_h5']) expect(listed.text).toContain(`value="${method}"`)

    expect((await form(`/cashier/${orderNo}/pay`)).status).toBe(409)
    const picked = await form(`/cashier/${orderNo}/pick`, {method: 'walletA_h5'})
    expect(picked).toMatchObject({status: 303, location: `/cashier/${orderNo}`})
    expect((await query({orderNo})).data).toMatchObject({status: 'paying', fundStatus: 'processing', channel: 'walletA', method: 'walletA_h5', product: 'H5', tradeNo: `GT${orderNo.slice(2)}`})

    const other = await form(`/cashier/${orderNo}/pick`, {method: 'walletB_h5'})
    expect(other.status).toBe(409)
    expect(other.text).toContain('this order is already being paid with walletA_h5; the method is locked and cannot be changed to walletB_h5')
    expect((await form(`/cashier/${orderNo}/pick`, {method: 'walletA_h5'})).status).toBe(303)

    expect((await form(`/cashier/${orderNo}/pay`)).status).toBe(303)
    const paid = (await query({orderNo})).data
    expect(paid).toMatchObject({status: 'paid', fundStatus: 'success', channel: 'walletA', method: 'walletA_h5', outOrderNo: `CH${orderNo}`})
    expect(paid.payTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)

    const arrived = await waitFor(() => receiver.received.find((r) => r.body.includes(orderNo)))
    expect(readEnvelope(arrived.body, t.client.platformKey).verified).toBe(true)
    const callback = JSON.parse(arrived.body)
    expect(callback).toMatchObject({event: 'pay.success', protocol: 'system', mchNo: t.client.mchNo})
    expect(callback.data).toMatchObject({orderNo, bizOrderNo: created.data.bizOrderNo, status: 'paid', amount: '100', channel: 'walletA', method: 'walletA_h5', attach: 'cart-7', fundStatus: 'success'})
    expect(callback.data).not.toHaveProperty('returnUrl')

    const final = await page(`/cashier/${orderNo}`)
    expect(final.text).toContain('data-status="paid"')
    expect(final.text).not.toContain('/pick')
    expect(await form(`/cashier/${orderNo}/pay`)).toMatchObject({status: 303, location: `/cashier/${orderNo}`})
  })

  it('fails the payment for the test title and sends pay.fail', async () => {
    const created = await prePay({title: 'Coffee test:fail', notifyUrl: receiver.url})
    const {orderNo} = created.data
    await form(`/cashier/${orderNo}/pick`, {method: 'walletC_h5'})
    await form(`/cashier/${orderNo}/pay`)
    expect((await query({orderNo})).data).toMatchObject({status: 'failed', fundStatus: 'fail', channel: 'walletC'})
    const shown = await page(`/cashier/${orderNo}`)
    expect(shown.text).toContain('data-status="failed"')
    expect(shown.text).toContain('sandbox test value &quot;test:fail&quot; in the title')
    await waitFor(() => receiver.received.some((r) => r.body.includes(orderNo) && JSON.parse(r.body).event === 'pay.fail'))
  })

  it('refuses a method the order does not offer; allocation orders leave walletC out', async () => {
    const created = await prePay({allocation: true})
    const {orderNo} = created.data
    const listed = await page(`/cashier/${orderNo}`)
    expect(listed.text).not.toContain('walletC_h5')
    const refused = await form(`/cashier/${orderNo}/pick`, {method: 'walletC_h5'})
    expect(refused.status).toBe(400)
    expect(refused.text).toContain('method walletC_h5 is not offered for this order')
    expect((await form(`/cashier/${orderNo}/pick`, {method: 'walletB_jsapi'})).status).toBe(400)
    expect((await query({orderNo})).data.status).toBe('wait_pay')
  })

  it('closes an open order through the control API (pay.close), not a final one', async () => {
    const created = await prePay({notifyUrl: receiver.url})
    const {orderNo} = created.data
    await form(`/cashier/${orderNo}/pick`, {method: 'walletD_h5'})
    const closed = await t.post('/_sandbox/gateway/close', {order: created.data.bizOrderNo})
    expect(closed.body).toMatchObject({orderNo, status: 'closed', fundStatus: 'close'})
    expect((await t.post('/_sandbox/gateway/close', {order: orderNo})).body.code).toBe(20044)
    expect((await form(`/cashier/${orderNo}/pay`)).status).toBe(303)
    expect((await query({orderNo})).data.status).toBe('closed')
    await waitFor(() => receiver.received.some((r) => r.body.includes(orderNo) && JSON.parse(r.body).event === 'pay.close'))
  })
})

describe('the pages', () => {
  it('routes the aggregate page by the wallet in the user agent', async () => {
    const {orderNo} = (await prePay({gatewayPayType: 'aggregate'})).data
    const plain = await page(`/aggregate/${orderNo}`)
    expect(plain.status).toBe(200)
    expect(plain.text).toMatch(/<div id="qr"><svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    expect(plain.text).toContain('WalletA/, WalletB/, WalletC/ or WalletD/')
    expect((await form(`/aggregate/${orderNo}/pick`)).status).toBe(400)

    const walletB = 'Mozilla/5.0 (iPhone) Mobile WalletB/10.5.1'
    const inWallet = await page(`/aggregate/${orderNo}`, walletB)
    expect(inWallet.text).toContain('data-wallet="walletB"')
    expect(inWallet.text).not.toContain('<svg')
    expect((await form(`/aggregate/${orderNo}/pick`, {}, walletB)).status).toBe(303)
    expect((await query({orderNo})).data).toMatchObject({status: 'paying', channel: 'walletB', method: 'walletB_jsapi'})
    const otherWallet = await page(`/aggregate/${orderNo}`, 'Mozilla/5.0 WalletA/8.0')
    expect(otherWallet.text).toContain('This order is being paid with walletB_jsapi; the method is locked.')
    expect((await form(`/aggregate/${orderNo}/pick`, {}, 'Mozilla/5.0 WalletA/8.0')).status).toBe(409)
    expect((await form(`/aggregate/${orderNo}/pay`, {}, walletB)).status).toBe(303)
    expect((await query({orderNo})).data.status).toBe('paid')
  })

  it('resolves the mini-program links and sends each link type to the order\'s own page', async () => {
    const cashier = (await prePay()).data.orderNo
    const aggregate = (await prePay({gatewayPayType: 'aggregate'})).data.orderNo
    const cm = await page(`/cm/${cashier}`)
    expect(cm.text).toContain('Unified cashier mini program')
    expect(cm.text).toContain(`<code id="launch">/cm/${cashier}</code>`)
    expect(cm.text).toContain(`href="/cashier/${cashier}"`)
    expect((await page(`/am/${aggregate}`)).text).toContain('Aggregate payment mini program')
    expect(await page(`/am/${cashier}`)).toMatchObject({status: 303, location: `/cm/${cashier}`})
    expect(await page(`/cashier/${aggregate}`)).toMatchObject({status: 303, location: `/aggregate/${aggregate}`})
  })

  it('shows amount in yuan, title, countdown and state; escapes what merchants send', async () => {
    const title = '<script>alert(1)</script>咖啡 & "tea"'
    const {orderNo} = (await prePay({title, amount: 1250, returnUrl: 'https://shop.example.com/?a=1&b="2"'})).data
    const shown = await page(`/cashier/${orderNo}`)
    expect(shown.type).toBe('text/html; charset=utf-8')
    expect(shown.text).toContain('<p class="amount" id="amount">¥12.50</p>')
    expect(shown.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;咖啡 &amp; &quot;tea&quot;')
    expect(shown.text).not.toContain('<script>alert(1)')
    expect(shown.text).toMatch(/id="countdown" data-remaining-ms="\d+">(29:59|30:00)</)
    expect(shown.text).toContain('data-status="wait_pay"')
  })

  it('answers 404 pages for unknown orders and auth links, 405 for the wrong method', async () => {
    for (const path of ['/cashier/GW404', '/aggregate/GW404', '/cm/GW404', '/am/GW404', '/auth/Q404', '/cashier/%E0%A4%A']) {
      const answer = await page(path)
      expect(answer.status).toBe(404)
      expect(answer.type).toBe('text/html; charset=utf-8')
    }
    const {orderNo} = (await prePay()).data
    expect((await page(`/cashier/${orderNo}/pay`)).status).toBe(405)
    expect((await form(`/cm/${orderNo}/pay`)).status).toBe(404)
  })
})

describe('expiry', () => {
  function service(start: number, dir = mkdtempSync(join(tmpdir(), 'unipay-gw-'))) {
    const store = new Store(join(dir, 'journal.jsonl')).open()
    const events: {event: string; data: Record<string, unknown>}[] = []
    const clock = {now: start}
    const notifier = {emit: (input: {event: string; data: Record<string, unknown>}) => events.push(input)} as unknown as Notifier
    const now = () => new Date(clock.now)
    const pay = new PayService({store, notifier, now, publicUrl: () => 'http://sandbox'})
    const gateway = new GatewayService({store, notifier, pay, now, publicUrl: () => 'http://sandbox'})
    const create = (extra: Record<string, unknown> = {}) =>
      gateway.prePay({mchNo: 'M1', reqId: 'r', reqTime: '', bizOrderNo: bizNo(), title: 'T', amount: 1, gatewayPayType: 'cashier', notifyUrl: 'http://shop/n', ...extra}, 'A1')
    return {gateway, clock, events, create, dir, close: () => store.close(), cleanup: () => (store.close(), removeDir(dir))}
  }

  it('moves wait_pay and paying orders to expired after 30 minutes, with pay.close; final orders stay', () => {
    const s = service(Date.UTC(2030, 0, 1))
    const waiting = s.create()
    const paying = s.create()
    const paid = s.create()
    s.gateway.pick(paying.orderNo, 'walletA_h5')
    s.gateway.pick(paid.orderNo, 'walletB_h5')
    s.gateway.pay(paid.orderNo)
    s.clock.now += 30 * 60 * 1000 - 1000
    expect(s.gateway.find('M1', {orderNo: waiting.orderNo}).status).toBe('wait_pay')
    s.clock.now += 1000
    const status = (o: GatewayOrder) => s.gateway.find('M1', {orderNo: o.orderNo}).status
    expect([status(waiting), status(paying), status(paid)]).toEqual(['expired', 'expired', 'paid'])
    expect(s.events.filter((e) => e.event === 'pay.close').map((e) => e.data.orderNo)).toEqual([waiting.orderNo, paying.orderNo])
    expect(() => s.gateway.pay(paying.orderNo)).toThrow('this order is expired; it can no longer be paid')
    s.cleanup()
  })

  it('honours the expiredTime sent, and keeps orders and their idempotency keys across a restart', () => {
    const start = Date.UTC(2030, 0, 1)
    const first = service(start)
    const created = first.create({expiredTime: formatGmt8(new Date(start + 60_000))})
    first.close()
    const s = service(start, first.dir)
    expect(s.gateway.find('M1', {bizOrderNo: created.bizOrderNo}).status).toBe('wait_pay')
    expect(() => s.create({bizOrderNo: created.bizOrderNo})).toThrow('was already used with different parameters')
    s.clock.now += 60_000
    expect(s.gateway.view(created.orderNo)?.status).toBe('expired')
    s.cleanup()
  })
})

describe('the client', () => {
  it('checks the gateway fields before sending', async () => {
    await expect(buildRequest(t.client, endpoints.gatewayPrePay, {...order(), gatewayPayType: 'qr'})).rejects.toThrow('invalid input')
    await expect(buildRequest(t.client, endpoints.queryGateway, {orderNo: 'G'.repeat(65)})).rejects.toThrow('invalid input')
  })
})
