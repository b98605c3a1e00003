// Through the CLI: `verify --request` says what the sandbox says about bodies real SDKs send,
// and a merchant set to cents allocates what a cents client means.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {cli, type Cli} from '../helpers/cli.js'
import {waitFor} from '../helpers/sandbox.js'
import {sdkSigned} from '../helpers/sdk.js'

let c: Cli
let url = ''
let privatePem = ''
let publicFile = ''
const MCH = 'M2000000011'

beforeAll(async () => {
  c = cli()
  url = (await c.json(['sandbox', 'start'])).body.data.url
  const pair = generateRsaKeyPair()
  privatePem = pair.privateKeyPem
  publicFile = join(c.dir, 'merchant.pub')
  writeFileSync(publicFile, pair.publicKeyPem)
  expect((await c.run(['sandbox', 'merchants', 'add', MCH, '--public-key-file', publicFile])).code).toBe(0)
})
afterAll(async () => {
  await c.run(['sandbox', 'stop'])
  await c.cleanup()
})

let seq = 0
const common = () => ({mchNo: MCH, appId: null, reqId: `R${Date.now()}${++seq}`, nonceStr: `N${Date.now()}${seq}`, reqTime: formatGmt8(new Date())})

/** verify --request's verdict and the sandbox's on the same body. */
async function verdicts(path: string, body: Record<string, unknown>) {
  const file = join(c.dir, `body-${++seq}.json`)
  writeFileSync(file, JSON.stringify(body))
  const verify = await c.run(['verify', '--request', '--data', `@${file}`, '--public-key', publicFile])
  const answer = (await (await fetch(`${url}${path}`, {method: 'POST', headers: {'content-type': 'application/json'}, body: readFileSync(file, 'utf8')})).json()) as {code: number}
  return {verify: verify.code, sandbox: answer.code}
}

describe('verify --request agrees with the sandbox', () => {
  it('on SDK bodies (nulls, an own `source` field, close without useCancel) and on tampered ones', async () => {
    const pay = sdkSigned({...common(), bizOrderNo: `B${Date.now()}`, title: 'Tea', amount: 100, method: 'walletA_qr', attach: null, notifyUrl: null, source: 'unipay-python-sdk/1.4.0'}, privatePem)
    expect(await verdicts('/unipay/pay', pay)).toEqual({verify: 0, sandbox: 0})
    const close = sdkSigned({...common(), bizOrderNo: pay.bizOrderNo}, privatePem)
    expect(await verdicts('/unipay/close', close)).toEqual({verify: 0, sandbox: 0})
    const tamperedPay = sdkSigned({...common(), bizOrderNo: `B${Date.now()}x`, title: 'Tea', amount: 100, source: 'sdk'}, privatePem)
    expect(await verdicts('/unipay/pay', {...tamperedPay, source: 'other'})).toEqual({verify: 3, sandbox: 20052})
    const closeWithDefault = sdkSigned({...common(), bizOrderNo: pay.bizOrderNo}, privatePem)
    expect(await verdicts('/unipay/close', {...closeWithDefault, useCancel: false})).toEqual({verify: 3, sandbox: 20052})
  })
})

describe('sandbox merchants set --alloc-amount-unit', () => {
  it('makes the sandbox take cents for the merchant; a cents profile then splits 0.60 yuan as 0.60', async () => {
    const set = await c.run(['sandbox', 'merchants', 'set', MCH, '--alloc-amount-unit', 'cents'])
    expect(set.code).toBe(0)
    expect(set.stdout).toBe(`${MCH}\tallocAmountUnit=cents\n`)
    expect((await c.run(['sandbox', 'merchants', 'set', MCH, '--alloc-amount-unit', 'fen'])).code).toBe(2)
    const unknown = await c.run(['sandbox', 'merchants', 'set', 'M9', '--alloc-amount-unit', 'cents'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no merchant M9')
    // a profile of that merchant, built for a platform that takes cents
    const privateFile = join(c.dir, 'merchant.key')
    writeFileSync(privateFile, privatePem, {mode: 0o600})
    const platformFile = join(c.dir, 'platform.pub')
    writeFileSync(platformFile, (await c.json(['sandbox', 'status'])).body.data.platformPublicKey)
    const added = await c.run(['profile', 'add', 'cents', '--environment', 'sandbox', '--base-url', url, '--mch-no', MCH, '--app-id', `A${MCH}`, '--private-key-file', privateFile, '--platform-public-key-file', platformFile, '--use'])
    expect(added.code, added.stderr).toBe(0)
    expect((await c.run(['profile', 'set', 'allocAmountUnit', 'cents'])).code).toBe(0)

    const order = (await c.json(['pay', 'create', '--title', 'Split', '--amount', '1000', '--auth-code', '134567890123456789', '--allocation'])).body.data
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', '1900000109', '--name', 'Shop', '--mch-no', MCH])).code).toBe(0)
    const created = await c.json(['alloc', '--biz-order-no', order.bizOrderNo, '--biz-alloc-no', 'ALC-1', '--receiver', 'MERCHANT_ID:1900000109:0.60:Shop', '--yes'])
    expect(created.code).toBe(0)
    await waitFor(async () => (await c.json(['query', 'alloc', '--biz-alloc-no', 'ALC-1'])).body.data.status === 'success')
    const query = await c.run(['query', 'alloc', '--biz-alloc-no', 'ALC-1'])
    expect(query.stdout).toMatch(/^amount \(yuan\)\s+0\.60$/m)
    expect(query.stdout).toMatch(/^MERCHANT_ID\t1900000109\tShop\t0\.60\tsuccess/m)
    expect((await c.json(['query', 'pay', '--order-no', order.orderNo])).body.data.refundableBalance).toBe(940)
  })
})
