// The dashboard in a real browser: an order created by the CLI appears, is paid from the page,
// and its callback shows up (live update, no reload); on a phone-sized screen too.
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {launchBrowser, screenshot} from '../helpers/browser.js'
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

describe('sandbox dashboard', () => {
  it('shows a CLI-created order, pays it from the page, and shows its callback', async () => {
    const created = await c.json(['pay', 'create', '--title', 'Dashboard <i>tea</i>', '--amount', '388', '--notify-url', receiver.url])
    expect(created.code).toBe(0)
    const {orderNo} = created.body.data
    // the address `sandbox open` opens: a one-time sign-in ticket, traded for a cookie
    const url = (await c.json(['sandbox', 'open', '--print'])).body.data.url
    const dashboard = new URL('/dashboard', url).toString()
    const page = await browser.newPage({viewport: {width: 390, height: 844}, isMobile: true})
    await page.goto(url)
    // the ticket leaves the address bar (and the history) at once
    expect(page.url()).toBe(dashboard)
    const pay = page.locator(`button[data-action="pay"][data-id="${orderNo}"]`)
    await expect(pay.count()).resolves.toBe(1)
    await expect(page.locator('#orders').textContent()).resolves.toContain('Dashboard <i>tea</i>')
    await screenshot(page, 'dashboard-order-open')
    await pay.click()
    await page.waitForURL(dashboard)
    await expect(page.locator(`#orders tr:has-text("${orderNo}") [data-status]`).getAttribute('data-status')).resolves.toBe('success')
    await waitFor(() => receiver.received.some((r) => r.body.includes(orderNo)))
    // the callback row arrives by the live update, without a reload
    await page.waitForSelector('#callbacks [data-status="delivered"]', {timeout: 10_000})
    await screenshot(page, 'dashboard-order-paid')
    await page.close()
  }, 60_000)

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
