// The dashboard in a real browser: an order created by the CLI appears, is paid from the page,
// and its callback shows up (live update, no reload); on a phone-sized screen too. The page's
// clock is the test's (Playwright's clock): its 2 s live update runs when the test moves it.
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {launchBrowser, screenshot} from '../helpers/browser.js'
import type {SandboxCallbacksListResult} from '../../src/commands/sandbox/callbacks/list.js'
import {cli, type Cli} from '../helpers/cli.js'
import {callbackReceiver, waitFor, type Receiver} from '../helpers/sandbox.js'

let browser: Browser
let c: Cli
let receiver: Receiver
beforeAll(async () => {
  browser = await launchBrowser()
  c = cli()
  receiver = await callbackReceiver()
})
afterAll(async () => {
  await browser?.close()
  await receiver?.close()
  await c?.cleanup()
})

/** Pauses the page's installed clock 200 ms ahead of where it is. */
async function pauseSoon(page: Page): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 200)
    } catch (error) {
      if (tries === 5 || !/fast-forward to the past/.test(String(error))) throw error
    }
  }
}

describe('sandbox dashboard', () => {
  it('shows a CLI-created order, pays it from the page, and shows its callback', async () => {
    const created = await c.json(['pay', 'create', '--title', 'Dashboard <i>tea</i>', '--amount', '388', '--notify-url', receiver.url])
    expect(created.code).toBe(0)
    const {orderNo} = created.body.data
    // the address `sandbox open` opens: a one-time sign-in ticket, traded for a cookie
    const url = (await c.json(['sandbox', 'open', '--print'])).body.data.url
    const dashboard = new URL('/dashboard', url).toString()
    const page = await browser.newPage({viewport: {width: 390, height: 844}, isMobile: true})
    await page.clock.install()
    await page.goto(url)
    // the ticket leaves the address bar (and the history) at once
    expect(page.url()).toBe(dashboard)
    const pay = page.locator(`button[data-action="pay"][data-id="${orderNo}"]`)
    await expect(pay.count()).resolves.toBe(1)
    await expect(page.locator('#orders').textContent()).resolves.toContain('Dashboard <i>tea</i>')
    await screenshot(page, 'dashboard-order-open')
    // the receiver refuses the first attempt, so the page shows the callback pending whenever it renders
    receiver.answers.push({status: 500, body: 'busy'})
    await pay.click()
    await page.waitForURL(dashboard)
    // from here the page's time moves only when the test moves it (pausing a moment ahead of the
    // page's clock, which runs on until then: asked again if a busy machine let it pass that moment)
    await pauseSoon(page)
    await expect(page.locator(`#orders tr:has-text("${orderNo}") [data-status]`).getAttribute('data-status')).resolves.toBe('success')
    const callback = async () => (await c.result<SandboxCallbacksListResult>(['sandbox', 'callbacks', 'list'])).find((n) => n.body.includes(orderNo))
    const refused = await waitFor(async () => ((await callback())?.attempts.length ? callback() : undefined))
    expect(refused?.state).toBe('pending')
    // resent now, it is delivered; the page shows it at its next live update (every 2 s of its clock), not before, and without a reload
    expect((await c.run(['sandbox', 'callbacks', 'resend', refused.id])).code).toBe(0)
    expect((await callback())?.state).toBe('delivered')
    await page.evaluate(() => Object.assign(globalThis, {sameDocument: true}))
    expect(await page.locator('#callbacks [data-status="delivered"]').count()).toBe(0)
    await page.clock.runFor(2000)
    await page.waitForSelector('#callbacks [data-status="delivered"]')
    expect(await page.evaluate(() => (globalThis as {sameDocument?: boolean}).sameDocument)).toBe(true)
    await screenshot(page, 'dashboard-order-paid')
    await page.close()
  })

  it('refuses a browser that was not signed in: the page and a form post are 403, the order stays open', async () => {
    const created = await c.json(['pay', 'create', '--title', 'Not yours', '--amount', '100'])
    const {orderNo} = created.body.data
    const dashboard = new URL('/dashboard', (await c.json(['sandbox', 'open', '--print'])).body.data.url).toString()
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const shown = await page.goto(dashboard)
      expect(shown?.status()).toBe(403)
      await expect(page.locator('body').textContent()).resolves.toContain('unipay sandbox open')
      const posted = await context.request.post(dashboard, {form: {action: 'pay', id: orderNo}, maxRedirects: 0})
      expect(posted.status()).toBe(403)
      expect((await c.json(['query', 'pay', '--order-no', orderNo])).body.data.status).toBe('progress')
    } finally {
      await context.close()
    }
  })
})
