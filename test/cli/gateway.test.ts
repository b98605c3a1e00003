import {chmodSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AuthUrlResult} from '../../src/commands/auth/url.js'
import {cli, type Cli} from '../helpers/cli.js'
import {waitFor} from '../helpers/sandbox.js'

let c: Cli
beforeAll(() => {
  c = cli({sandbox: 'in-process'})
})
afterAll(async () => {
  await c.cleanup()
})

/** A browser's form POST on a sandbox page (redirects not followed). */
async function post(url: string, fields: Record<string, string> = {}) {
  const response = await fetch(url, {method: 'POST', body: new URLSearchParams(fields), redirect: 'manual'})
  return response.status
}

describe('gateway prepay and query gateway', () => {
  it('creates a cashier order, and the query follows it to paid with channel and method', async () => {
    const created = await c.run(['gateway', 'prepay', '--type', 'cashier', '--title', '咖啡', '--yuan', '12.50', '--attach', 'cart-1'])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain('✓ answer signature verified with the platform public key')
    expect(created.stdout).toMatch(/^orderNo\tGW\d{20}$/m)
    expect(created.stdout).toMatch(/^bizOrderNo\tG\d{14}[0-9A-F]{8}$/m)
    expect(created.stdout).toMatch(/^status\twait_pay$/m)
    expect(created.stdout).toMatch(/^gatewayType\tcashier$/m)
    const h5Url = /^h5Url\t(\S+)$/m.exec(created.stdout)![1]
    const orderNo = /^orderNo\t(\S+)$/m.exec(created.stdout)![1]
    expect(h5Url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/cashier/${orderNo}$`))
    expect(created.stdout).toMatch(new RegExp(`^miniUrl\\thttp://127\\.0\\.0\\.1:\\d+/cm/${orderNo}$`, 'm'))

    const before = await c.run(['query', 'gateway', '--order-no', orderNo])
    expect(before.stdout).toMatch(/^status\twait_pay$/m)
    expect(before.stdout).toMatch(/^amount\t1250$/m)
    expect(before.stdout).toMatch(/^fundStatus\tinit$/m)

    expect(await post(`${h5Url}/pick`, {method: 'walletA_h5'})).toBe(303)
    expect(await post(`${h5Url}/pay`)).toBe(303)
    const after = await c.json(['query', 'gateway', '--biz-order-no', /^bizOrderNo\t(\S+)$/m.exec(created.stdout)![1]])
    expect(after.code).toBe(0)
    expect(after.body.data).toMatchObject({orderNo, status: 'paid', channel: 'walletA', method: 'walletA_h5', fundStatus: 'success', title: '咖啡', attach: 'cart-1'})
    // absent fields (description, returnUrl) are left out, never null
    expect(Object.keys(after.body.data)).toHaveLength(16)
    expect(Object.values(after.body.data)).not.toContain(null)
  })

  it('returns the stored order for a repeated bizOrderNo and says when its type differs', async () => {
    const first = await c.json(['gateway', 'prepay', '--type', 'aggregate', '--title', 'Tea', '--amount', '5', '--biz-order-no', 'GW-CLI-1'])
    expect(first.body.data).toMatchObject({gatewayType: 'aggregate', status: 'wait_pay'})
    const again = await c.json(['gateway', 'prepay', '--type', 'cashier', '--title', 'Tea', '--amount', '5', '--biz-order-no', 'GW-CLI-1'])
    expect(again.code).toBe(0)
    expect(again.body.data).toEqual(first.body.data)
    expect(again.stderr).toContain('bizOrderNo GW-CLI-1 already exists as a aggregate order: the stored order is returned')
    const conflicting = await c.run(['gateway', 'prepay', '--type', 'aggregate', '--title', 'Tea', '--amount', '6', '--biz-order-no', 'GW-CLI-1'])
    expect(conflicting.code).toBe(1)
    expect(conflicting.stderr).toContain('platform error 10507: bizOrderNo GW-CLI-1 was already used with different parameters')
  })

  it('takes every field of the spec, goodsDetail from --data', async () => {
    const data = join(c.dir, 'goods.json')
    writeFileSync(data, JSON.stringify({goodsDetail: [{goodsId: 'G1', goodsName: 'Tea', quantity: 2, unitPrice: 50}]}))
    const dry = await c.json([
      'gateway', 'prepay', '--type', 'cashier', '--title', 'All', '--amount', '100', '--biz-order-no', 'ALL-1', '--description', 'd',
      '--currency', 'cny', '--notify-url', 'https://shop.example.com/n', '--return-url', 'https://shop.example.com/r', '--attach', 'a',
      '--extra-param', '{"k":1}', '--expired-time', '2099-01-01 00:00:00', '--store-no', 'S1', '--allocation', '--data', `@${data}`, '--dry-run',
    ])
    expect(dry.code).toBe(0)
    expect(dry.body.request.body).toMatchObject({
      bizOrderNo: 'ALL-1', title: 'All', amount: 100, description: 'd', currency: 'cny', gatewayPayType: 'cashier',
      notifyUrl: 'https://shop.example.com/n', returnUrl: 'https://shop.example.com/r', attach: 'a', extraParam: '{"k":1}',
      expiredTime: '2099-01-01 00:00:00', storeNo: 'S1', allocation: true, goodsDetail: [{goodsId: 'G1', goodsName: 'Tea', quantity: 2, unitPrice: 50}],
    })
    expect(dry.body.request.canonicalString).toContain('goodsDetail[0].goodsId=G1')
  })

  it.each([
    [['--title', 'T', '--amount', '1'], '--type: is required: cashier or aggregate'],
    [['--type', 'qr', '--title', 'T', '--amount', '1'], 'Expected --type=qr to be one of: cashier, aggregate'],
    [['--type', 'cashier', '--title', 'T', '--amount', '0'], '--amount: must be at least 1'],
    [['--type', 'cashier', '--title', 'T', '--amount', '1', '--notify-url', `https://e.com/${'n'.repeat(250)}`], '--notify-url: must be at most 256 characters'],
    [['--type', 'cashier', '--title', 'T', '--amount', '1', '--extra-param', '{no'], '--extra-param: must be JSON text'],
    [['--type', 'cashier', '--title', 'T', '--amount', '1', '--expired-time', '2030-01-01'], '--expired-time: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'],
    [['--type', 'cashier', '--title', 'T', '--amount', '1', '--store-no', 's'.repeat(65)], '--store-no: must be at most 64 characters'],
  ])('refuses bad input with exit 2, naming the flag: %j', async (args, message) => {
    const result = await c.run(['gateway', 'prepay', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })

  it('names the flags a query needs', async () => {
    const result = await c.run(['query', 'gateway'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--order-no: one of orderNo / bizOrderNo is required')
    const unknown = await c.run(['query', 'gateway', '--order-no', 'GW0'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('platform error 20041: gateway order not found')
  })

  it('draws h5Url as a QR code with --qr, and opens it with the platform opener with --open', async () => {
    const bin = join(c.dir, 'fake-bin')
    mkdirSync(bin, {recursive: true})
    const opened = join(c.dir, 'opened.txt')
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$#" "$@" > '${opened}'\n`)
    chmodSync(join(bin, 'xdg-open'), 0o755)
    const result = await c.run(['gateway', 'prepay', '--type', 'aggregate', '--title', 'T & "Q"', '--amount', '1', '--qr', '--open'], {
      env: {PATH: `${bin}:${process.env.PATH}`},
    })
    expect(result.code).toBe(0)
    const h5Url = /^h5Url\t(\S+)$/m.exec(result.stdout)![1]
    expect(result.stdout).toMatch(/[▀▄█]{4}/)
    expect(result.stdout.trim().split('\n').at(-1)).toBe(h5Url)
    expect(result.stderr).toContain(`opened ${h5Url} in the browser`)
    const args = await waitFor(() => {
      try {
        return readFileSync(opened, 'utf8')
      } catch {
        return undefined
      }
    })
    expect(args).toBe(`1\n${h5Url}\n`)
  })

  it('says so when there is no opener, and still succeeds', async () => {
    const result = await c.run(['gateway', 'prepay', '--type', 'cashier', '--title', 'T', '--amount', '1', '--open'], {env: {PATH: join(c.dir, 'empty')}})
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/could not open the browser \(xdg-open: ENOENT\); open http:\/\/127\.0\.0\.1:\d+\/cashier\/GW\d+ yourself/)
  })
})

describe('auth url and auth exchange', () => {
  it('walks a session: waiting, approved on the page, success once per authToken', async () => {
    const dry = await c.json(['auth', 'url', '--dry-run'])
    expect(dry.body.request.body.authType).toBe('walletA')
    const url = await c.json(['auth', 'url', '--product', 'H5'])
    expect(url.code).toBe(0)
    const {authUrl, queryCode, authToken} = url.body.data
    expect(authUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/auth/${queryCode}$`))

    const waiting = await c.run(['auth', 'exchange', '--auth-code', 'none-yet', '--query-code', queryCode])
    expect(waiting.code).toBe(0)
    expect(waiting.stdout).toMatch(/^status\twaiting$/m)
    expect(waiting.stderr).toContain('the payer has not approved yet')

    expect(await post(`${authUrl}/approve`)).toBe(303)
    const code = /<code id="auth-code">(AC[0-9a-f]+)<\/code>/.exec(await (await fetch(authUrl)).text())![1]
    const success = await c.run(['auth', 'exchange', '--auth-code', code, '--query-code', queryCode, '--auth-token', authToken, '--debug'])
    expect(success.code).toBe(0)
    expect(success.stdout).toMatch(/^status\tsuccess$/m)
    expect(success.stdout).toMatch(/^openId\to[\w-]+$/m)
    expect(success.stdout).toMatch(/^accessToken\t\(hidden; --json shows it\)$/m)
    expect(success.stderr).toContain('(unsigned)')
    expect(success.stderr).not.toMatch(/at_[0-9a-f]{32}/)

    const reused = await c.run(['auth', 'exchange', '--auth-code', code, '--auth-token', authToken])
    expect(reused.code).toBe(1)
    expect(reused.stderr).toContain(`platform error 20080: authToken ${authToken} was already used: it is single-use; generate a new authorization URL`)
  })

  it('keeps the openId with --set, and answers not_exist for an unknown queryCode', async () => {
    const {queryCode, authUrl} = await c.result<AuthUrlResult>(['auth', 'url'])
    const early = await c.json(['auth', 'exchange', '--auth-code', 'x', '--query-code', queryCode, '--set'])
    expect(early.code).toBe(1)
    expect(early.body.error).toMatchObject({kind: 'platform', code: 20080})
    await post(`${authUrl}/approve`)
    const set = await c.run(['auth', 'exchange', '--auth-code', 'x', '--query-code', queryCode, '--set'])
    expect(set.code).toBe(0)
    expect(set.stdout).toBe('')
    expect(set.stderr).toContain('authorized: the platform keeps the openId for this merchant app')
    const unknown = await c.json(['auth', 'exchange', '--auth-code', 'x', '--query-code', 'Qunknown'])
    expect(unknown.body).toMatchObject({ok: true, data: {status: 'not_exist'}, response: {code: 0, message: 'success'}})
  })

  it('prints a dry run of the unsigned exchange as every call prints one, without a string to sign', async () => {
    const shown = await c.run(['auth', 'exchange', '--auth-code', 'AC1', '--query-code', 'Q1', '--dry-run'])
    expect(shown.code).toBe(0)
    expect(shown.stderr).toMatch(/^dry run: not sent\. POST http:\/\/127\.0\.0\.1:\d+\/unipay\/assist\/channel\/auth\/auth \(unsigned\)$/m)
    expect(shown.stderr).not.toContain('string to sign')
    expect(JSON.parse(shown.stdout)).toMatchObject({authCode: 'AC1', queryCode: 'Q1'})
    const json = await c.json(['auth', 'exchange', '--auth-code', 'AC1', '--set', '--dry-run'])
    expect(json.body).toEqual({ok: true, dryRun: true, request: {url: expect.stringMatching(/\/auth-and-set$/), body: expect.objectContaining({authCode: 'AC1', mchNo: expect.any(String)})}})
  })

  it('refuses bad input before sending', async () => {
    const missing = await c.run(['auth', 'exchange', '--query-code', 'Q1'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('Missing required flag auth-code')
    const tooLong = await c.run(['auth', 'exchange', '--auth-code', 'x', '--auth-token', 't'.repeat(65)])
    expect(tooLong.code).toBe(2)
    expect(tooLong.stderr).toContain('--auth-token: must be at most 64 characters')
    const badType = await c.run(['auth', 'url', '--auth-type', 'walletC'])
    expect(badType.code).toBe(2)
  })
})
