import {mkdirSync} from 'node:fs'
import {chromium, type Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {callbackReceiver, removeDir, testSandbox, waitFor, type Receiver, type TestSandbox} from '../helpers/sandbox.js'

const SHOTS = 'artifacts/screenshots'
let browser: Browser
let t: TestSandbox
let receiver: Receiver
beforeAll(async () => {
  mkdirSync(SHOTS, {recursive: true})
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
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
    await page.screenshot({path: `${SHOTS}/transfer-confirm-waiting.png`, fullPage: true})
    await page.click('#accept')
    await page.waitForSelector('#state[data-status="success"]')
    await expect(page.locator('#accept').count()).resolves.toBe(0)
    await page.screenshot({path: `${SHOTS}/transfer-confirm-accepted.png`, fullPage: true})
    expect((await t.send(endpoints.queryTransfer, {transferNo: created.data.transferNo})).data.status).toBe('success')
    await waitFor(() => receiver.received.some((r) => JSON.parse(r.body).event === 'transfer.success'))
    await page.close()
  })

  it('shows a clear error page for an unknown transfer', async () => {
    const page = await browser.newPage()
    const response = await page.goto(`${t.sandbox.url}/transfer/confirm/TR0`)
    expect(response?.status()).toBe(404)
    await page.close()
  })
})
