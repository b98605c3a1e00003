// The sandbox's payment and authorization pages in a real browser (headless, phone-sized; see
// test/helpers/browser.ts for which one), driven next to the CLI. Every page is saved under artifacts/screenshots/.
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {loadPublicKey} from '../../src/protocol/keys.js'
import {formatGmt8, parseGmt8} from '../../src/protocol/time.js'
import {hasCjkFont, launchBrowser, screenshot} from '../helpers/browser.js'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {callbackReceiver, controlHeaders, runtimeIn, waitFor, type Receiver} from '../helpers/sandbox.js'

const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
const WALLET_UA = {walletA: `${PHONE} WalletA/8.0.50`, walletB: `${PHONE} WalletB/10.5.30`}

let c: Cli
let receiver: Receiver
let browser: Browser
let sandboxUrl = ''
/** The sandbox clock's time: it stands still here, but where the tests move it. */
let sandboxNow = 0
let platformKey: ReturnType<typeof loadPublicKey>

beforeAll(async () => {
  c = cli()
  receiver = await callbackReceiver()
  const started = await startPausedSandbox(c)
  sandboxUrl = started.url
  sandboxNow = parseGmt8(started.now)!.getTime()
  platformKey = loadPublicKey((await c.json(['sandbox', 'status'])).body.data.platformPublicKey)
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await receiver?.close()
  await c?.cleanup()
})

async function phone(userAgent = PHONE): Promise<Page> {
  const context = await browser.newContext({viewport: {width: 390, height: 844}, isMobile: true, hasTouch: true, deviceScaleFactor: 2, userAgent})
  const page = await context.newPage()
  page.setDefaultTimeout(60_000)
  return page
}

const shot = screenshot
const state = (page: Page) => page.locator('#state').getAttribute('data-status')

async function prepay(args: string[]): Promise<Record<string, string>> {
  const created = await c.json(['gateway', 'prepay', '--notify-url', receiver.url, ...args])
  expect(created.code).toBe(0)
  return created.body.data
}

/** Chinese text drawn with the page's fonts differs from the glyph drawn for a missing character. */
const rendersChinese = (page: Page): Promise<boolean> =>
  page.evaluate(`(() => {
    const canvas = document.createElement('canvas')
    canvas.width = 160
    canvas.height = 48
    const g = canvas.getContext('2d')
    const draw = (text) => {
      g.clearRect(0, 0, 160, 48)
      g.font = '32px ' + getComputedStyle(document.body).fontFamily
      g.fillText(text, 0, 36)
      return canvas.toDataURL()
    }
    return draw('支付') !== draw('\\u{10FFFD}\\u{10FFFD}')
  })()`)

describe('the cashier page', () => {
  it('lets the payer pick walletA and pay; the CLI query shows paid and the notifyUrl gets pay.success', async () => {
    const order = await prepay(['--type', 'cashier', '--title', '拿铁咖啡 Latte', '--yuan', '12.50', '--attach', 'cart-42'])
    const page = await phone()
    await page.goto(order.h5Url)
    await expect.poll(() => state(page)).toBe('wait_pay')
    expect(await page.locator('#title').textContent()).toBe('拿铁咖啡 Latte')
    expect(await page.locator('#amount').textContent()).toBe('¥12.50')
    expect(await page.locator('#countdown').textContent()).toMatch(/^(29:5\d|30:00)$/)
    expect(await Promise.all((await page.locator('button[name="method"]').all()).map((button) => button.getAttribute('value')))).toEqual([
      'walletA_h5', 'walletB_h5', 'walletC_h5', 'walletD_h5',
    ])
    if (hasCjkFont()) expect(await rendersChinese(page)).toBe(true)
    await shot(page, 'cashier-methods')

    await page.click('#method-walletA_h5')
    await expect.poll(() => state(page)).toBe('paying')
    expect(page.url()).toBe(order.h5Url)
    expect(await page.locator('#method').textContent()).toBe('walletA_h5')
    await shot(page, 'cashier-paying')

    await page.click('#pay')
    await expect.poll(() => state(page)).toBe('paid')
    expect(await page.locator('#state').textContent()).toBe('支付成功 · Paid')
    expect(await page.locator('#channel').textContent()).toBe('walletA')
    expect(await page.locator('#countdown').count()).toBe(0)
    await shot(page, 'cashier-paid')
    await page.context().close()

    const queried = await c.run(['query', 'gateway', '--order-no', order.orderNo])
    expect(queried.code).toBe(0)
    expect(queried.stdout).toMatch(/^status\tpaid$/m)
    expect(queried.stdout).toMatch(/^channel\twalletA$/m)
    expect(queried.stdout).toMatch(/^method\twalletA_h5$/m)
    expect(queried.stdout).toMatch(/^fundStatus\tsuccess$/m)

    const arrived = await waitFor(() => receiver.received.find((r) => r.body.includes(order.orderNo)))
    expect(readEnvelope(arrived.body, platformKey).verified).toBe(true)
    expect(JSON.parse(arrived.body)).toMatchObject({
      event: 'pay.success',
      data: {orderNo: order.orderNo, status: 'paid', channel: 'walletA', method: 'walletA_h5', amount: '1250', attach: 'cart-42'},
    })
  })

  it('shows a declined payment (test title) as failed', async () => {
    const order = await prepay(['--type', 'cashier', '--title', '测试 test:fail', '--amount', '1'])
    const page = await phone()
    await page.goto(order.h5Url)
    await page.click('#method-walletD_h5')
    await page.click('#pay')
    await expect.poll(() => state(page)).toBe('failed')
    expect(await page.locator('#reason').textContent()).toContain('the wallet declined the payment')
    await shot(page, 'cashier-failed')
    await page.context().close()
    expect((await c.json(['query', 'gateway', '--order-no', order.orderNo])).body.data).toMatchObject({status: 'failed', fundStatus: 'fail'})
  })

  it('counts down and turns to expired on its own', async () => {
    const order = await prepay(['--type', 'cashier', '--title', '限时 Soon', '--amount', '1', '--expired-time', formatGmt8(new Date(sandboxNow + 10 * 60_000))])
    const page = await phone()
    // the page's timers run on a clock the test moves, as it moves the sandbox's: it stands still
    // from before the page loads (a minute ahead of now, which the install has not reached)
    await page.clock.install()
    await page.clock.pauseAt(Date.now() + 60_000)
    await page.goto(order.h5Url)
    expect(await state(page)).toBe('wait_pay')
    const left = async () => {
      const [minutes, seconds] = (await page.locator('#countdown').textContent())!.split(':').map(Number)
      return minutes * 60 + seconds
    }
    const atFirst = await left()
    // the sandbox's clock stands still too: ten minutes to the second
    expect(atFirst).toBe(10 * 60)
    await page.clock.runFor(60_000)
    expect(await left()).toBe(atFirst - 60)
    await shot(page, 'cashier-countdown')
    expect((await c.run(['sandbox', 'clock', 'advance', '10m'])).code).toBe(0)
    // down to 00:00, then the page reloads itself a second later and shows what the sandbox says
    await page.clock.runFor(10 * 60_000)
    await expect.poll(() => state(page)).toBe('expired')
    expect(await page.locator('button').count()).toBe(0)
    await shot(page, 'cashier-expired')
    await page.context().close()
  })

  it('shows a closed order, and a 404 page for an unknown one', async () => {
    const order = await prepay(['--type', 'cashier', '--title', 'Closed', '--amount', '1', '--return-url', 'https://shop.example.com/back'])
    await fetch(`${sandboxUrl}/_sandbox/gateway/close`, {method: 'POST', headers: controlHeaders(runtimeIn(c.env.XDG_DATA_HOME!)), body: JSON.stringify({order: order.orderNo})})
    const page = await phone()
    await page.goto(order.h5Url)
    expect(await state(page)).toBe('closed')
    expect(await page.locator('#return').getAttribute('href')).toBe('https://shop.example.com/back')
    await shot(page, 'cashier-closed')
    const missing = await page.goto(`${sandboxUrl}/cashier/GW00000000000000000000`)
    expect(missing?.status()).toBe(404)
    expect(await page.locator('#state').textContent()).toBe('订单不存在 · Order not found')
    await shot(page, 'not-found')
    await page.context().close()
  })
})

describe('the aggregate page', () => {
  it('shows one QR to a plain browser, and routes a walletB user agent to walletB', async () => {
    const order = await prepay(['--type', 'aggregate', '--title', '聚合 Tea', '--amount', '880'])
    const plain = await phone()
    await plain.goto(order.h5Url)
    expect(await plain.locator('#qr svg').isVisible()).toBe(true)
    expect(await plain.locator('#hint').textContent()).toContain('WalletB/')
    // the counter's QR screen asks the browser to reload it every 3 s, to follow the payment
    expect(await plain.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('3')
    await shot(plain, 'aggregate-qr')

    const page = await phone(WALLET_UA.walletB)
    await page.goto(order.h5Url)
    expect(await page.locator('#wallet').getAttribute('data-wallet')).toBe('walletB')
    expect(await page.locator('#qr').count()).toBe(0)
    await shot(page, 'aggregate-walletB')
    await page.click('#pick')
    await expect.poll(() => state(page)).toBe('paying')
    expect(await page.locator('#method').textContent()).toBe('walletB_jsapi')
    await page.click('#pay')
    await expect.poll(() => state(page)).toBe('paid')
    expect(await page.locator('#channel').textContent()).toBe('walletB')
    await shot(page, 'aggregate-walletB-paid')

    // a reload follows the payment (the browser's own reloads are not waited for on the real clock)
    await plain.reload()
    expect(await state(plain)).toBe('paid')
    expect(await plain.locator('meta[http-equiv="refresh"]').count()).toBe(0)
    await plain.context().close()
    await page.context().close()
    expect((await c.json(['query', 'gateway', '--order-no', order.orderNo])).body.data).toMatchObject({status: 'paid', channel: 'walletB', method: 'walletB_jsapi'})
  })
})

describe('the mini-program links', () => {
  it('name the mini program and the order, and continue to the H5 page', async () => {
    const cashier = await prepay(['--type', 'cashier', '--title', '小程序 Mini', '--amount', '1'])
    const aggregate = await prepay(['--type', 'aggregate', '--title', '小程序 Mini', '--amount', '1'])
    const page = await phone(WALLET_UA.walletA)
    await page.goto(cashier.miniUrl)
    expect(await page.locator('#mini').textContent()).toContain('Unified cashier mini program')
    expect(await page.locator('#launch').textContent()).toBe(`/cm/${cashier.orderNo}`)
    await shot(page, 'mini-cm')
    await page.goto(aggregate.miniUrl)
    expect(await page.locator('#mini').textContent()).toContain('Aggregate payment mini program')
    await shot(page, 'mini-am')
    await page.click('#continue')
    expect(page.url()).toBe(aggregate.h5Url)
    expect(await page.locator('#wallet').getAttribute('data-wallet')).toBe('walletA')
    await page.context().close()
  })
})

describe('the authorization page', () => {
  it('auth url, approve in the browser, auth exchange --query-code: success with an openId; the authToken works once', async () => {
    const url = await c.json(['auth', 'url'])
    expect(url.code).toBe(0)
    const {authUrl, queryCode, authToken} = url.body.data
    const page = await phone(WALLET_UA.walletA)
    await page.goto(authUrl)
    expect(await state(page)).toBe('waiting')
    await shot(page, 'auth-approve')
    await page.click('#approve')
    await expect.poll(() => state(page)).toBe('success')
    const code = (await page.locator('#auth-code').textContent())!
    await shot(page, 'auth-approved')
    await page.context().close()

    const exchanged = await c.json(['auth', 'exchange', '--auth-code', code, '--query-code', queryCode, '--auth-token', authToken])
    expect(exchanged.code).toBe(0)
    expect(exchanged.body.data).toMatchObject({status: 'success', openId: expect.stringMatching(/^o[\w-]+$/)})
    const reused = await c.run(['auth', 'exchange', '--auth-code', code, '--auth-token', authToken])
    expect(reused.code).toBe(1)
    expect(reused.stderr).toContain(`platform error 20080: authToken ${authToken} was already used: it is single-use; generate a new authorization URL`)
  })
})
