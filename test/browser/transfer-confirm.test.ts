import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {launchBrowser, screenshot} from '../helpers/browser.js'
import {callbackReceiver, removeDir, testSandbox, waitFor, type Receiver, type TestSandbox} from '../helpers/sandbox.js'

let browser: Browser
let t: TestSandbox
let receiver: Receiver
beforeAll(async () => {
  browser = await launchBrowser()
  t = await testSandbox()
  receiver = await callbackReceiver()
})
afterAll(async () => {
  await browser?.close()
  await receiver?.close()
  await t?.close()
  if (t) removeDir(t.dataDir)
})

describe('walletA transfer confirmation page', () => {
  it('shows the transfer, and the payee accepts it: success and transfer.success', async () => {
    const created = await t.send(endpoints.transfer, {
      channel: 'walletA', channelMchNo: 'CM1', bizTransferNo: 'BR-1', payeeType: 'openid', payeeAccount: 'oPayee', amount: 1234,
      title: '推荐奖励 <b>bold</b>', notifyUrl: receiver.url,
    })
    expect(created.data.status).toBe('processing')
    const page = await browser.newPage({viewport: {width: 390, height: 844}, isMobile: true})
    await page.goto(created.data.confirmUrl)
    await expect(page.locator('#amount').textContent()).resolves.toBe('¥12.34')
    await expect(page.locator('#title').textContent()).resolves.toBe('推荐奖励 <b>bold</b>')
    await expect(page.locator('#state').getAttribute('data-status')).resolves.toBe('processing')
    await screenshot(page, 'transfer-confirm-waiting')
    await page.click('#accept')
    await page.waitForSelector('#state[data-status="success"]')
    await expect(page.locator('#accept').count()).resolves.toBe(0)
    await screenshot(page, 'transfer-confirm-accepted')
    expect((await t.send(endpoints.queryTransfer, {transferNo: created.data.transferNo})).data.status).toBe('success')
    await waitFor(() => receiver.received.some((r) => JSON.parse(r.body).event === 'transfer.success'))
    await page.close()
  })

  it('refuses the accept form posted from another site, and the transfer stays processing', async () => {
    const created = await t.send(endpoints.transfer, {
      channel: 'walletA', channelMchNo: 'CM1', bizTransferNo: 'BR-2', payeeType: 'openid', payeeAccount: 'oPayee', amount: 500, title: 'x',
    })
    expect(created.data.status).toBe('processing')
    // a foreign page (another site: localhost, not 127.0.0.1) carrying a copy of the accept form
    const foreign = createServer((_req, res) => {
      res.writeHead(200, {'content-type': 'text/html; charset=utf-8'})
      res.end(`<!doctype html><form method="POST" action="${created.data.confirmUrl}"><button id="accept" type="submit">Win a prize</button></form>`)
    })
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve))
    try {
      const page = await browser.newPage()
      await page.goto(`http://localhost:${(foreign.address() as AddressInfo).port}/`)
      const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#accept')])
      expect(response.status()).toBe(403)
      expect(await response.text()).toMatch(/cross-site|cross-origin/)
      expect((await t.send(endpoints.queryTransfer, {transferNo: created.data.transferNo})).data.status).toBe('processing')
      await page.close()
    } finally {
      await new Promise((resolve) => foreign.close(resolve))
    }
  })

  it('shows a clear error page for an unknown transfer', async () => {
    const page = await browser.newPage()
    const response = await page.goto(`${t.sandbox.url}/transfer/confirm/TR0`)
    expect(response?.status()).toBe(404)
    await page.close()
  })
})
