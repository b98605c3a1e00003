import {beforeAll, describe, expect, it} from 'vitest'
import {endpoints} from '../../src/protocol/endpoints.js'
import {callbackReceiver, controlHeaders, removeDir, testSandbox, useCallbackReceiver, useTestSandbox, waitFor} from '../helpers/sandbox.js'

const t = useTestSandbox({timeScale: 10})
const receiver = useCallbackReceiver()

const control = async (method: string, path: string, body?: unknown): Promise<any> =>
  (await fetch(`${t.sandbox.url}/_sandbox/${path}`, {method, headers: controlHeaders(t.sandbox.runtime), body: body === undefined ? undefined : JSON.stringify(body)})).json()
const events = (name: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.event === name)

let seq = 0
async function paid(amount: number, allocation = true) {
  const answer = await t.send(endpoints.pay, {bizOrderNo: `AL${++seq}-${Date.now()}`, title: 'x', amount, authCode: '134567890123456789', allocation})
  return answer.data as {bizOrderNo: string; tradeNo: string}
}

describe('allocation', () => {
  beforeAll(async () => {
    for (const receiverAccount of ['1900000109', 'oRecv_2', 'oRecv_FAIL']) {
      await control('POST', 'receivers', {mchNo: t.client.mchNo, receiverType: receiverAccount.startsWith('19') ? 'MERCHANT_ID' : 'PERSONAL_OPENID', receiverAccount})
    }
  })

  it('splits a paid allocatable order to bound receivers, ends success with details, and refuses a second split', async () => {
    const order = await paid(1000)
    const receivers = [
      {receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: '示例商户有限公司', amount: 6},
      {receiverType: 'PERSONAL_OPENID', receiverAccount: 'oRecv_2', amount: 3.5},
    ]
    const created = await t.send(endpoints.alloc, {bizAllocNo: `A-${order.bizOrderNo}`, bizOrderNo: order.bizOrderNo, receivers, notifyUrl: receiver.url})
    expect(created.data).toMatchObject({status: 'processing'})
    const again = await t.send(endpoints.alloc, {bizAllocNo: `A-${order.bizOrderNo}`, bizOrderNo: order.bizOrderNo, receivers, notifyUrl: receiver.url})
    expect(again.data.allocNo).toBe(created.data.allocNo)
    await waitFor(async () => (await t.send(endpoints.queryAlloc, {allocNo: created.data.allocNo})).data.status === 'success')
    const query = await t.send(endpoints.queryAlloc, {bizAllocNo: `A-${order.bizOrderNo}`})
    // one unit throughout: the total is in yuan like its receivers
    expect(query.data.amount).toBe(9.5)
    expect(query.data.details).toEqual([
      expect.objectContaining({receiverAccount: '1900000109', amount: 6, result: 'success', finishTime: expect.any(String)}),
      expect.objectContaining({receiverAccount: 'oRecv_2', amount: 3.5, result: 'success'}),
    ])
    const event = await waitFor(() => events('alloc.success').find((e) => e.data.allocNo === created.data.allocNo))
    expect(event.data['details[1].amount']).toBe('3.5')
    const second = await t.send(endpoints.alloc, {bizAllocNo: `B-${order.bizOrderNo}`, tradeNo: order.tradeNo, receivers: receivers.slice(0, 1)})
    expect(second).toMatchObject({code: 20044, msg: expect.stringContaining('already has allocation')})
    expect((await t.send(endpoints.syncAlloc, {allocNo: created.data.allocNo})).data).toEqual({orderStatus: 'success', adjust: false})
  })

  it('refuses unbound receivers, non-allocatable orders and totals over the amount, clearly', async () => {
    const order = await paid(100)
    const unbound = await t.send(endpoints.alloc, {bizAllocNo: `U-${order.bizOrderNo}`, bizOrderNo: order.bizOrderNo, receivers: [{receiverType: 'USER_ID', receiverAccount: '2088000', amount: 0.5}]})
    expect(unbound).toMatchObject({code: 20080, msg: 'receivers[0]: USER_ID:2088000 is not bound to this merchant; bind it first'})
    const over = await t.send(endpoints.alloc, {bizAllocNo: `O-${order.bizOrderNo}`, bizOrderNo: order.bizOrderNo, receivers: [{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: '示例商户有限公司', amount: 1.01}]})
    expect(over.code).toBe(20060)
    const plain = await paid(100, false)
    const notAllocatable = await t.send(endpoints.alloc, {bizAllocNo: `N-${plain.bizOrderNo}`, bizOrderNo: plain.bizOrderNo, receivers: [{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: '示例商户有限公司', amount: 0.5}]})
    expect(notAllocatable.msg).toContain('was not created with allocation=true')
  })

  it('allocates only what refunds left in the order', async () => {
    const order = await paid(100)
    expect((await t.send(endpoints.refund, {bizOrderNo: order.bizOrderNo, amount: 60})).code).toBe(0)
    const over = await t.send(endpoints.alloc, {bizAllocNo: `R-${order.bizOrderNo}`, bizOrderNo: order.bizOrderNo, receivers: [{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: '示例商户有限公司', amount: 0.5}]})
    expect(over).toMatchObject({code: 20060, msg: expect.stringContaining('remains allocatable (0.4 yuan)')})
    const fits = await t.send(endpoints.alloc, {bizAllocNo: `R2-${order.bizOrderNo}`, bizOrderNo: order.bizOrderNo, receivers: [{receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: '示例商户有限公司', amount: 0.4}]})
    expect(fits.code).toBe(0)
    expect((await t.send(endpoints.queryPay, {bizOrderNo: order.bizOrderNo})).data.refundableBalance).toBe(0)
  })

  it('ends partial when some receivers fail, fail when all do, and allows a new split after a failure', async () => {
    const order = await paid(1000)
    const partial = await t.send(endpoints.alloc, {
      bizAllocNo: `P-${order.bizOrderNo}`,
      bizOrderNo: order.bizOrderNo,
      receivers: [{receiverType: 'PERSONAL_OPENID', receiverAccount: 'oRecv_2', amount: 1}, {receiverType: 'PERSONAL_OPENID', receiverAccount: 'oRecv_FAIL', amount: 1}],
    })
    await waitFor(async () => (await t.send(endpoints.queryAlloc, {allocNo: partial.data.allocNo})).data.status === 'partial')
    const other = await paid(1000)
    const failing = await t.send(endpoints.alloc, {bizAllocNo: `F-${other.bizOrderNo}`, bizOrderNo: other.bizOrderNo, receivers: [{receiverType: 'PERSONAL_OPENID', receiverAccount: 'oRecv_FAIL', amount: 1}], notifyUrl: receiver.url})
    await waitFor(() => events('alloc.fail').some((e) => e.data.allocNo === failing.data.allocNo))
    const retry = await t.send(endpoints.alloc, {bizAllocNo: `F2-${other.bizOrderNo}`, bizOrderNo: other.bizOrderNo, receivers: [{receiverType: 'PERSONAL_OPENID', receiverAccount: 'oRecv_2', amount: 1}]})
    expect(retry.code).toBe(0)
  })
})

describe('transfer', () => {
  const transfer = (fields: Record<string, unknown>) =>
    t.send(endpoints.transfer, {channel: 'walletB', channelMchNo: 'CM1', payeeType: 'user_id', payeeAccount: '2088123', amount: 100, notifyUrl: receiver.url, ...fields})

  it('settles walletB transfers, refuses duplicates, and reuses a failed one', async () => {
    const ok = await transfer({bizTransferNo: 'T-OK'})
    expect(ok.data).toMatchObject({status: 'processing'})
    await waitFor(async () => (await t.send(endpoints.queryTransfer, {bizTransferNo: 'T-OK', channel: 'walletB'})).data.status === 'success')
    const dup = await transfer({bizTransferNo: 'T-OK'})
    expect(dup).toMatchObject({code: 10507, msg: expect.stringContaining('duplicate transfer')})
    const refused = await transfer({bizTransferNo: 'T-REUSE', payeeAccount: '2088_refused'})
    expect(refused).toMatchObject({code: 20045, msg: expect.stringContaining('refused the payee')})
    const failed = await t.send(endpoints.queryTransfer, {bizTransferNo: 'T-REUSE', channel: 'walletB'})
    expect(failed.data).toMatchObject({status: 'fail', errorMsg: expect.stringContaining('refused the payee')})
    const reused = await transfer({bizTransferNo: 'T-REUSE'})
    expect(reused.data.transferNo).toBe(failed.data.transferNo)
    await waitFor(() => events('transfer.success').some((e) => e.data.transferNo === failed.data.transferNo))
    expect(events('transfer.fail').some((e) => e.data.transferNo === failed.data.transferNo)).toBe(true)
  })

  it('runs out of balance, and fails later for the test value', async () => {
    const {balance} = await control('GET', `balance?mchNo=${t.client.mchNo}`)
    await control('POST', 'balance', {mchNo: t.client.mchNo, amount: 150})
    expect((await transfer({bizTransferNo: 'T-B1'})).code).toBe(0)
    const poor = await transfer({bizTransferNo: 'T-B2'})
    expect(poor).toMatchObject({code: 20045, msg: expect.stringContaining('insufficient balance: the merchant has 50 cents')})
    await control('POST', 'balance', {mchNo: t.client.mchNo, amount: balance})
    const later = await transfer({bizTransferNo: 'T-LATER', payeeAccount: '2088_fails_later'})
    await waitFor(async () => (await t.send(endpoints.queryTransfer, {transferNo: later.data.transferNo})).data.status === 'fail')
    expect((await control('GET', `balance?mchNo=${t.client.mchNo}`)).balance).toBe(balance)
  })

  it('keeps walletA transfers processing with a confirmUrl until the payee accepts', async () => {
    const created = await t.send(endpoints.transfer, {channel: 'walletA', channelMchNo: 'CM1', bizTransferNo: 'T-A1', payeeType: 'openid', payeeAccount: 'oPayee', amount: 500, title: '奖励'})
    expect(created.data).toMatchObject({status: 'processing', confirmUrl: `${t.sandbox.url}/transfer/confirm/${created.data.transferNo}`})
    const page = await fetch(created.data.confirmUrl)
    expect(await page.text()).toContain('奖励')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    const accepted = await fetch(created.data.confirmUrl, {method: 'POST', redirect: 'manual'})
    expect(accepted.status).toBe(303)
    expect((await t.send(endpoints.queryTransfer, {transferNo: created.data.transferNo})).data.status).toBe('success')
    expect((await fetch(created.data.confirmUrl, {method: 'POST', redirect: 'manual'})).status).toBe(409)
  })

  it('applies the per-channel rules (server side too)', async () => {
    const {buildRequest} = await import('../../src/client/pipeline.js')
    await expect(buildRequest(t.client, endpoints.transfer, {channel: 'walletA', channelMchNo: 'C', bizTransferNo: 'x', payeeType: 'phone', payeeAccount: '1', amount: 100})).rejects.toThrow()
    const cases: [Record<string, unknown>, string][] = [
      [{channel: 'walletA', payeeType: 'phone'}, 'payeeType: phone is not taken by walletA'],
      [{channel: 'walletA', payeeType: 'openid', amount: 29, payeeName: 'Li'}, 'payeeName: must be empty for walletA transfers below 0.30 yuan'],
      [{channel: 'walletA', payeeType: 'openid', amount: 200000}, 'payeeName: is required (the payee\'s real name) for walletA transfers of 2000 yuan or more'],
    ]
    const {canonicalString} = await import('../../src/protocol/canonical.js')
    const {signString} = await import('../../src/protocol/signature.js')
    for (const [fields, message] of cases) {
      const base = (await buildRequest(t.client, endpoints.ping, {})).body
      const body: Record<string, unknown> = {...base, channelMchNo: 'C', bizTransferNo: `R-${Math.random()}`, payeeAccount: 'p', amount: 100, ...fields}
      delete body.sign
      const answer = await t.post('/unipay/transfer', {...body, sign: signString(canonicalString(body), t.client.privateKey!)})
      expect(answer.body.code).toBe(10506)
      expect(answer.body.msg).toContain(message)
    }
  })
})

describe('unconfirmed walletA transfers', () => {
  it('close when the payee does not confirm in time: transfer.close, and the amount goes back', async () => {
    // 10 minutes of confirmation window at 20,000x: 30 ms
    const fast = await testSandbox({timeScale: 20_000})
    const fastReceiver = await callbackReceiver()
    try {
      const balance = async () => ((await (await fetch(`${fast.sandbox.url}/_sandbox/balance?mchNo=${fast.client.mchNo}`, {headers: controlHeaders(fast.sandbox.runtime)})).json()) as {balance: number}).balance
      const before = await balance()
      const created = await fast.send(endpoints.transfer, {
        channel: 'walletA', channelMchNo: 'CM1', bizTransferNo: 'T-CLOSE', payeeType: 'openid', payeeAccount: 'oLate', amount: 700, notifyUrl: fastReceiver.url,
      })
      expect(await balance()).toBe(before - 700)
      const event = await waitFor(() => fastReceiver.received.map((r) => JSON.parse(r.body)).find((b) => b.event === 'transfer.close'))
      expect(event.data).toMatchObject({transferNo: created.data.transferNo, status: 'close'})
      expect(await balance()).toBe(before)
      expect((await fetch(created.data.confirmUrl, {method: 'POST', redirect: 'manual'})).status).toBe(409)
    } finally {
      await fastReceiver.close()
      await fast.close()
      removeDir(fast.dataDir)
    }
  })
})
