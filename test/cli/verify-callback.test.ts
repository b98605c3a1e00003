import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {flattenToStrings} from '../../src/protocol/canonical.js'
import {signMd5, signRsa} from '../../src/protocol/epay.js'
import {loadPrivateKey} from '../../src/protocol/keys.js'
import {sdkSigned} from '../helpers/sdk.js'
import {cli, type Cli} from '../helpers/cli.js'

const fixture = JSON.parse(readFileSync(new URL('../fixtures/epay-sign.json', import.meta.url), 'utf8'))
const md5Key: string = fixture.v1.md5Key
const md5Notify: Record<string, string> = fixture.v1.vectors.find((v: {kind: string}) => v.kind === 'notification').params
const rsaNotify: Record<string, string> = fixture.v2.vectors.find((v: {kind: string}) => v.kind === 'notification').params
const query = (params: Record<string, string>) => new URLSearchParams(params).toString()
/** The vector's V2 notification signed again (platform key) with a timestamp `offset` seconds from now. */
const freshRsaNotify = (offset = 0): Record<string, string> => {
  const {sign: _sign, sign_type: _signType, ...params} = rsaNotify
  const unsigned = {...params, timestamp: String(Math.floor(Date.now() / 1000) + offset)}
  return {...unsigned, sign: signRsa(unsigned, loadPrivateKey(fixture.v2.keys.platform_private_key_pkcs8_b64)), sign_type: 'RSA'}
}

let c: Cli
const file = (name: string, text: string) => {
  const path = join(c.dir, name)
  writeFileSync(path, text, {mode: 0o600})
  return path
}
let keyFile = ''
let platformFile = ''
let merchantFile = ''
let merchantPrivateFile = ''

beforeAll(() => {
  c = cli()
  keyFile = file('md5.key', `${md5Key}\n`)
  platformFile = file('platform.pub', fixture.v2.keys.platform_public_key_spki_b64)
  merchantFile = file('merchant.pub', fixture.v2.keys.merchant_public_key_spki_b64)
  merchantPrivateFile = file('merchant.key', fixture.v2.keys.merchant_private_key_pkcs8_b64)
})
afterAll(async () => {
  await c.cleanup()
})

describe('verify --callback, easy_pay', () => {
  it('verifies an MD5 notification from a query string or a whole URL, never printing the key', async () => {
    const ok = await c.run(['verify', '--callback', '--data', query(md5Notify), '--md5-key-file', keyFile])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain(`string to sign\t${fixture.v1.vectors[2].canonicalString}{MD5 key}`)
    expect(ok.stdout).toMatch(/^verified\tyes, with key MD5 key$/m)
    expect(ok.stdout + ok.stderr).not.toContain(md5Key)
    const url = await c.json(['verify', '--callback', '--data', `http://127.0.0.1:8080/notify?${query(md5Notify)}`, '--md5-key-file', keyFile])
    expect(url.code).toBe(0)
    expect(url.body.data).toMatchObject({verified: true, protocol: 'easy_pay', signType: 'MD5'})
    const stdin = await c.run(['verify', '--callback', '--data', '-', '--md5-key-file', keyFile], {input: `${query(md5Notify)}\n`})
    expect(stdin.code).toBe(0)
  })

  it('explains an MD5 failure: exit 3 with the variant that matches', async () => {
    const changed = await c.run(['verify', '--callback', '--data', query({...md5Notify, money: '9.00'}), '--md5-key-file', keyFile])
    expect(changed.code).toBe(3)
    expect(changed.stderr).toContain('signature does not verify: no common variant verifies: the parameters were changed after signing, or they were signed with another MD5 key')
    const keyParam = await c.json(['verify', '--callback', '--data', query({...md5Notify, sign: signMd5(md5Notify, md5Key, 'param')}), '--md5-key-file', keyFile])
    expect(keyParam.code).toBe(3)
    expect(keyParam.body.error.details).toMatchObject({
      verified: false,
      explanation: 'MD5 key appended as `&key=KEY`, while the rule appends it directly',
      matchingString: `${fixture.v1.vectors[2].canonicalString}&key={MD5 key}`,
    })
    expect(JSON.stringify(keyParam.body)).not.toContain(md5Key)
  })

  it('explains a failure of a notification with many fields at once: the diagnosis is bounded (it was quadratic in their number)', async () => {
    // 30,000 parameters added to a signed notification, about 300 KB of query string
    const padding = Array.from({length: 30_000}, (_, i) => `k${i}=v`).join('&')
    const hostile = await c.run(['verify', '--callback', '--data', `@${file('many.txt', `${query(md5Notify)}&${padding}`)}`, '--md5-key-file', keyFile])
    expect(hostile.code).toBe(3)
    expect(hostile.stderr).toContain('signature does not verify: the string to sign is over 64 KB: not diagnosed further (the parameters were changed after signing, or another MD5 key signed them)')
  })

  it('takes the MD5 key from the profile, and says how to give one when there is none', async () => {
    expect((await c.run(['profile', 'add', 'shop', '--environment', 'sandbox', '--base-url', 'https://pay.example.com', '--mch-no', 'M1', '--platform-public-key-file', platformFile, '--private-key-file', merchantPrivateFile])).code).toBe(0)
    expect((await c.run(['profile', 'set', 'md5Key', '-', '--profile', 'shop'], {input: md5Key})).code).toBe(0)
    expect((await c.run(['verify', '--callback', '--data', query(md5Notify), '--profile', 'shop'])).code).toBe(0)
    // (the built-in local profile has the sandbox's MD5 key now: a profile without one)
    expect((await c.run(['profile', 'add', 'no-md5', '--environment', 'sandbox', '--base-url', 'https://pay.example.com', '--mch-no', 'M1'])).code).toBe(0)
    const none = await c.run(['verify', '--callback', '--data', query(md5Notify), '--profile', 'no-md5'])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('no MD5 key: pass --md5-key-file FILE or set one in the profile')
  })

  it('verifies an RSA notification with the platform key, and names the wrong key', async () => {
    expect((await c.run(['verify', '--callback', '--data', query(freshRsaNotify()), '--public-key', platformFile])).code).toBe(0)
    expect((await c.run(['verify', '--callback', '--data', query(freshRsaNotify()), '--profile', 'shop'])).code).toBe(0)
    const wrong = await c.run(['verify', '--callback', '--data', query(freshRsaNotify()), '--public-key', merchantFile])
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).toContain('signature does not verify: no common variant verifies')
    const fresh = freshRsaNotify()
    const byMerchant = {...fresh, sign: signRsa(fresh, loadPrivateKey(fixture.v2.keys.merchant_private_key_pkcs8_b64))}
    const named = await c.run(['verify', '--callback', '--data', query(byMerchant), '--profile', 'shop'])
    expect(named.code).toBe(3)
    expect(named.stderr).toMatch(/signature does not verify: wrong key: the string is right, but it was signed with the merchant key of the profile/)
    expect(named.stderr).toMatch(/^string to sign by the rule: api_trade_no=/m)
  })

  it('refuses an RSA (V2) notification outside the 300 s window, with its age, as V2 clients would', async () => {
    // the vector's notification is years old: its signature holds, its timestamp does not
    const stale = await c.run(['verify', '--callback', '--data', query(rsaNotify), '--public-key', platformFile])
    expect(stale.code).toBe(3)
    const age = Math.floor(Date.now() / 1000) - Number(rsaNotify.timestamp)
    expect(stale.stderr).toMatch(new RegExp(`the signature holds, but its timestamp ${rsaNotify.timestamp} is (${age}|${age + 1}|${age + 2}) s old`))
    const sixMinutes = freshRsaNotify(-360)
    const late = await c.run(['verify', '--callback', '--data', query(sixMinutes), '--public-key', platformFile])
    expect(late.code).toBe(3)
    expect(late.stderr).toMatch(/is 36[0-2] s old/)
    expect((await c.run(['verify', '--callback', '--data', query(freshRsaNotify(-240)), '--public-key', platformFile])).code).toBe(0)
  })

  it('refuses input it cannot check (exit 2)', async () => {
    const noSign = await c.run(['verify', '--callback', '--data', 'pid=1&money=1.00'])
    expect(noSign.code).toBe(2)
    expect(noSign.stderr).toContain('the callback has no sign parameter to verify')
    const badType = await c.run(['verify', '--callback', '--data', query({...md5Notify, sign_type: 'SHA1'}), '--md5-key-file', keyFile])
    expect(badType.code).toBe(2)
    expect(badType.stderr).toContain('sign_type "SHA1" is neither MD5 nor RSA')
    expect((await c.run(['verify', '--data', '{}', '--md5-key-file', keyFile])).code).toBe(2)
  })

  it('names an empty --md5-key-file as empty, for sign and verify alike (exit 2)', async () => {
    const empty = file('empty.key', ' \n')
    for (const argv of [
      ['verify', '--callback', '--data', query(md5Notify), '--md5-key-file', empty],
      ['verify', '--scheme', 'epay-v1', '--data', query(md5Notify), '--md5-key-file', empty],
      ['sign', '--scheme', 'epay-v1', '--data', 'pid=1001&out_trade_no=T1', '--md5-key-file', empty],
    ]) {
      const run = await c.run(argv)
      expect(run.code, argv.join(' ')).toBe(2)
      expect(run.stderr).toBe(`Error: --md5-key-file: ${empty} is empty\n`)
    }
  })
})

describe('verify --callback, system', () => {
  it('verifies a saved JSON callback and explains a changed one', async () => {
    const platformPrivate = loadPrivateKey(fixture.v2.keys.platform_private_key_pkcs8_b64)
    const envelope = {code: 0, msg: 'success', data: flattenToStrings({orderNo: 'DP1', amount: 100, status: 'success'}), resTime: '2026-11-22 10:00:00', reqId: 'N1', event: 'pay.success', eventId: 'e1', protocol: 'system', mchNo: 'M1'}
    const saved = file('callback.json', JSON.stringify(sdkSigned(envelope, platformPrivate.export({type: 'pkcs8', format: 'pem'}) as string)))
    const ok = await c.run(['verify', '--callback', '--data', `@${saved}`, '--public-key', platformFile])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('data.amount=100&data.orderNo=DP1&data.status=success')
    writeFileSync(saved, readFileSync(saved, 'utf8').replace('"status":"success"', '"status":"fail"'))
    const changed = await c.run(['verify', '--callback', '--data', `@${saved}`, '--public-key', platformFile])
    expect(changed.code).toBe(3)
    expect(changed.stderr).toContain('signature does not verify: no common variant verifies')
  })
})
