import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PayCreateResult} from '../../src/commands/pay/create.js'
import type {QueryAllocResult} from '../../src/commands/query/alloc.js'
import type {QueryTransferResult} from '../../src/commands/query/transfer.js'
import type {TransferBatchResult} from '../../src/commands/transfer/batch.js'
import type {TransferResult} from '../../src/commands/transfer/index.js'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {payoutFile} from '../helpers/payouts.js'
import {sandboxTransfers} from '../helpers/sandbox.js'

let c: Cli
let sandboxUrl = ''
beforeAll(async () => {
  c = cli()
  // the sandbox clock stands still: splits and transfers settle when a test moves it
  sandboxUrl = (await startPausedSandbox(c)).url
})
afterAll(async () => {
  await c.cleanup()
})

describe('allocation', () => {
  it('splits a paid allocatable order to two bound receivers, refuses an unbound one and a second split', async () => {
    const order = await c.result<PayCreateResult>(['pay', 'create', '--title', 'Split me', '--amount', '1000', '--auth-code', '134567890123456789', '--allocation'])
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', '1900000109', '--name', '示例商户'])).code).toBe(0)
    expect((await c.run(['sandbox', 'receivers', 'bind', 'PERSONAL_OPENID', 'oRecv2'])).code).toBe(0)
    const unbound = await c.run(['alloc', '--biz-order-no', order.bizOrderNo, '--receiver', 'USER_ID:2088999:1.00'])
    expect(unbound.code).toBe(1)
    expect(unbound.stderr).toContain('receivers[0]: USER_ID:2088999 is not bound to this merchant; bind it first')
    const created = await c.json(['alloc', '--biz-order-no', order.bizOrderNo, '--biz-alloc-no', 'AL-1', '--receiver', 'MERCHANT_ID:1900000109:6.00:示例商户', '--receiver', 'PERSONAL_OPENID:oRecv2:3.5'])
    expect(created.code).toBe(0)
    expect(created.body.response.data).toMatchObject({bizAllocNo: 'AL-1', status: 'processing'})
    expect(created.body.data.status).toBe('processing')
    expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
    expect((await c.result<QueryAllocResult>(['query', 'alloc', '--biz-alloc-no', 'AL-1'])).status).toBe('success')
    const query = await c.run(['query', 'alloc', '--biz-alloc-no', 'AL-1'])
    expect(query.stdout).toMatch(/^MERCHANT_ID\t1900000109\t示例商户\t6.00\tsuccess\t\t\d{4}-/m)
    expect(query.stdout).toMatch(/^PERSONAL_OPENID\toRecv2\t\t3.50\tsuccess/m)
    const second = await c.run(['alloc', '--trade-no', order.tradeNo, '--receiver', 'PERSONAL_OPENID:oRecv2:1'])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('already has allocation')
    const bad = await c.run(['alloc', '--biz-order-no', order.bizOrderNo, '--receiver', 'PERSONAL_OPENID:oRecv2:1.005'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('receivers[0].amount: "1.005" is not an amount in yuan with at most 2 decimals')
  })
})

describe('transfer', () => {
  it('transfers, queries, refuses a duplicate, and checks channel rules before sending', async () => {
    expect(await c.result<TransferResult>(['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088001', '--amount', '250', '--biz-transfer-no', 'TF-1'])).toMatchObject({bizTransferNo: 'TF-1', status: 'processing'})
    expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
    expect((await c.result<QueryTransferResult>(['query', 'transfer', '--biz-transfer-no', 'TF-1', '--channel', 'walletB'])).status).toBe('success')
    const dup = await c.run(['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088001', '--amount', '250', '--biz-transfer-no', 'TF-1'])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain('platform error 10507: duplicate transfer')
    const wrongType = await c.run(['transfer', '--channel', 'walletA', '--payee-type', 'user_id', '--payee-account', 'x', '--amount', '100'])
    expect(wrongType.code).toBe(2)
    expect(wrongType.stderr).toContain('--payee-type: user_id is not taken by walletA (use openid)')
    const bigNoName = await c.run(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'o1', '--yuan', '2000'])
    expect(bigNoName.code).toBe(2)
    expect(bigNoName.stderr).toContain('--payee-name: is required')
    const walletA = await c.result<TransferResult>(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'o1', '--amount', '100'])
    expect(walletA.confirmUrl).toMatch(new RegExp(`^${sandboxUrl}/transfer/confirm/TR\\d+$`))
  })
})

describe('transfer batch', () => {
  it('refuses a file with bad rows as a whole, listing every bad row by line', async () => {
    const before = (await sandboxTransfers(c)).length
    const file = join(c.dir, 'bad.csv')
    writeFileSync(file, 'channel,payeeType,payeeAccount,amount,colour\nwalletB,user_id,2088,100,red\nwalletA,user_id,o1,100,\nwalletB,user_id,,abc,\nwalletD,phone,138,1.5,\n')
    const result = await c.run(['transfer', 'batch', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('line 1: colour: unknown column')
    expect(result.stderr).toContain('line 3: payeeType: user_id is not taken by walletA (use openid)')
    expect(result.stderr).toContain('line 4: amount: "abc" is not a whole number of cents')
    expect(result.stderr).toContain('line 4: payeeAccount: is required')
    expect(result.stderr).toContain('line 5: amount: "1.5" is not a whole number of cents')
    expect(result.stderr).toContain('problems in')
    expect(existsSync(`${file}.journal`)).toBe(false)
    expect((await sandboxTransfers(c)).length).toBe(before)
  })

  it('refuses a row with a control character as the file check, by its line, before sending any row', async () => {
    // the escape would reach the platform's signed string and every screen; the run used to pass
    // the check, send the rows before it, then stop at this one with "invalid input" on every --resume
    const before = (await sandboxTransfers(c)).length
    const file = join(c.dir, 'escape.csv')
    writeFileSync(file, 'bizTransferNo,channel,amount,payeeType,payeeAccount,payeeName\r\nE1,walletB,100,user_id,2088,\r\nE2,walletB,100,user_id,2088,"\u001b]0;pwned\u0007"\r\n')
    const dry = await c.run(['transfer', 'batch', file, '--dry-run', '--channel-mch-no', 'CM'])
    expect(dry.code, dry.stdout).toBe(2)
    expect(dry.stderr).toContain('line 3: payeeName: must not contain control characters')
    const result = await c.run(['transfer', 'batch', file, '--channel-mch-no', 'CM'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('line 3: payeeName: must not contain control characters')
    expect(existsSync(`${file}.journal`)).toBe(false)
    expect((await sandboxTransfers(c)).length).toBe(before)
  })

  it('prints the plan for a dry run and sends nothing', async () => {
    const {file, cents} = payoutFile(c, 'plan.csv', 50, 'P')
    const plan = await c.result<TransferBatchResult>(['transfer', 'batch', file, '--dry-run'])
    expect(plan).toMatchObject({rows: 50, totalCents: cents, byChannel: {walletB: {rows: 50, cents}}})
    expect(existsSync(`${file}.journal`)).toBe(false)
  })
})
