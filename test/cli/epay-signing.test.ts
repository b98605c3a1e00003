// `sign --scheme epay-v1|epay-v2` and `verify --scheme ...` reproduce and check every vector of
// ../shared/vectors/epay-sign.json; the MD5 key is read from a file and never printed.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {epayV2Sign, oracleSign} from '../helpers/sdk.js'

interface Vector {
  name: string
  kind: 'request' | 'notification'
  params: Record<string, string>
  canonicalString: string
  sign: string
  signedBy: string
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/epay-sign.json', import.meta.url), 'utf8'))
const md5Key: string = fixture.v1.md5Key
const vectors: [string, 'epay-v1' | 'epay-v2', Vector][] = [
  ...fixture.v1.vectors.map((v: Vector) => [v.name, 'epay-v1', v]),
  ...fixture.v2.vectors.map((v: Vector) => [v.name, 'epay-v2', v]),
]

let c: Cli
const file = (name: string, text: string) => {
  const path = join(c.dir, name)
  writeFileSync(path, text, {mode: 0o600})
  return path
}
const files: Record<string, string> = {}
beforeAll(() => {
  c = cli({sandbox: 'in-process'})
  files.md5 = file('md5.key', `${md5Key}\n`)
  files.merchantPrivate = file('merchant.key', fixture.v2.keys.merchant_private_key_pkcs8_b64)
  files.merchantPublic = file('merchant.pub', fixture.v2.keys.merchant_public_key_spki_b64)
  files.platformPrivate = file('platform.key', fixture.v2.keys.platform_private_key_pkcs8_b64)
  files.platformPublic = file('platform.pub', fixture.v2.keys.platform_public_key_spki_b64)
})
afterAll(async () => {
  await c.cleanup()
})

const keyFlags = (scheme: string, vector: Vector, kind: 'private' | 'public') => {
  if (scheme === 'epay-v1') return ['--md5-key-file', files.md5]
  const platform = vector.signedBy === 'platform private key'
  if (kind === 'private') return ['--private-key', platform ? files.platformPrivate : files.merchantPrivate]
  return ['--public-key', platform ? files.platformPublic : files.merchantPublic]
}

describe('sign --scheme', () => {
  it.each(vectors)('%s: the string to sign and the signature of the vector', async (_name, scheme, vector) => {
    const {sign: _, ...unsigned} = vector.params
    const data = file(`${vector.name}.json`, JSON.stringify(unsigned))
    const signed = await c.json(['sign', '--scheme', scheme, '--data', `@${data}`, ...keyFlags(scheme, vector, 'private')])
    expect(signed.code).toBe(0)
    expect(signed.body.data).toMatchObject({canonicalString: vector.canonicalString, signature: vector.sign, signType: scheme === 'epay-v1' ? 'MD5' : 'RSA'})
    expect(JSON.stringify(signed)).not.toContain(md5Key)
    // piped: the two lines, as for the /unipay scheme; the params may also come as a query string on stdin
    const piped = await c.run(['sign', '--scheme', scheme, '--data', '-', ...keyFlags(scheme, vector, 'private')], {input: new URLSearchParams(unsigned).toString()})
    expect(piped.stdout).toBe(`${vector.canonicalString}\n${vector.sign}\n`)
  })

  it('epay-v2 leaves whitespace-only values out, as the V2 merchant SDK does; verify accepts either selection', async () => {
    const timestamp = String(Math.floor(Date.now() / 1000))
    const params = {pid: '1001', out_trade_no: 'T1', money: '1.00', name: 'VIP', param: ' ', timestamp}
    const signed = await c.json(['sign', '--scheme', 'epay-v2', '--data', JSON.stringify(params), '--private-key', files.merchantPrivate])
    expect(signed.body.data.canonicalString).toBe(`money=1.00&name=VIP&out_trade_no=T1&pid=1001&timestamp=${timestamp}`)
    const sdkPem = `-----BEGIN PRIVATE KEY-----\n${fixture.v2.keys.merchant_private_key_pkcs8_b64}\n-----END PRIVATE KEY-----\n`
    expect(signed.body.data.signature).toBe(epayV2Sign(params, sdkPem))
    const keptText = `money=1.00&name=VIP&out_trade_no=T1&param= &pid=1001&timestamp=${timestamp}`
    for (const sign of [signed.body.data.signature, oracleSign(keptText, sdkPem)]) {
      const check = await c.run(['verify', '--scheme', 'epay-v2', '--request', '--data', JSON.stringify({...params, sign, sign_type: 'RSA'}), '--public-key', files.merchantPublic])
      expect(check.code, check.stderr).toBe(0)
    }
  })

  it('appends the MD5 key as &key= with --md5-key-form key-param', async () => {
    const vector: Vector = fixture.v1.vectors[0]
    const answer = await c.json(['sign', '--scheme', 'epay-v1', '--data', JSON.stringify(vector.params), '--md5-key-file', files.md5, '--md5-key-form', 'key-param'])
    expect(answer.body.data.md5KeyAppended).toBe('&key=KEY')
    expect(answer.body.data.signature).not.toBe(vector.sign)
    expect(answer.body.data.signature).toMatch(/^[0-9a-f]{32}$/)
  })

  it('says how to give an MD5 key when there is none', async () => {
    expect((await c.run(['profile', 'add', 'bare', '--base-url', 'https://pay.example.com', '--mch-no', 'M1'])).code).toBe(0)
    const answer = await c.run(['sign', '--scheme', 'epay-v1', '--data', '{"a":"1"}', '--profile', 'bare'])
    expect(answer.code).toBe(2)
    expect(answer.stderr).toContain('no MD5 key: pass --md5-key-file FILE or set one in the profile')
  })
})

describe('verify --scheme', () => {
  it.each(vectors)('%s: verifies (a V2 vector is refused for its age alone), and a changed value does not', async (_name, scheme, vector) => {
    const ok = await c.json(['verify', '--scheme', scheme, '--data', JSON.stringify(vector.params), ...keyFlags(scheme, vector, 'public'), ...(vector.signedBy === 'merchant private key' ? ['--request'] : [])])
    const canonicalString = scheme === 'epay-v1' ? `${vector.canonicalString}{MD5 key}` : vector.canonicalString
    if (scheme === 'epay-v1') {
      expect(ok.code).toBe(0)
      expect(ok.body.data).toMatchObject({verified: true, protocol: scheme, canonicalString})
    } else {
      // the vectors' timestamp is of 2023: their signature holds, their age does not
      expect(ok.code).toBe(3)
      expect(ok.body.error.message).toMatch(/^refused for its age: the signature holds, but its timestamp 1700000000 is \d+ s old/)
      expect(ok.body.error.details).toMatchObject({verified: false, signatureHolds: true, protocol: scheme, canonicalString})
    }
    const changed = await c.run(['verify', '--scheme', scheme, '--data', new URLSearchParams({...vector.params, name: 'changed'}).toString(), ...keyFlags(scheme, vector, 'public')])
    expect(changed.code).toBe(3)
    expect(changed.stderr).toContain('signature does not verify')
    expect(changed.stdout + changed.stderr + JSON.stringify(ok)).not.toContain(md5Key)
  })

  it('epay-v2: an answer as a V2 client receives it is judged by its age too, and its data is said to be unsigned', async () => {
    const platformPem = `-----BEGIN PRIVATE KEY-----\n${fixture.v2.keys.platform_private_key_pkcs8_b64}\n-----END PRIVATE KEY-----\n`
    /** A query answer `age` seconds old, as the platform sends it: flat fields signed, data beside them. */
    const answer = (age: number) => {
      const flat = {code: 0, msg: 'success', trade_no: 'DP2026112700001', out_trade_no: 'E1', type: 'alipay', money: '12.50', status: 1, timestamp: String(Math.floor(Date.now() / 1000) - age), sign_type: 'RSA'}
      const sign = epayV2Sign(Object.fromEntries(Object.entries(flat).filter(([key]) => key !== 'sign_type').map(([k, v]) => [k, String(v)])), platformPem)
      return JSON.stringify({...flat, data: {orderNo: 'DP2026112700001', bizOrderNo: 'E1', status: 'success', amount: 1250, realAmount: 1250}, sign})
    }
    const old = await c.json(['verify', '--scheme', 'epay-v2', '--data', answer(308), '--public-key', files.platformPublic])
    expect(old.code).toBe(3)
    // its age as judged when the command ran: 308 s, and a few more on a slow machine
    const age = Number(/^refused for its age: the signature holds, but its timestamp \d+ is (\d+) s old \(V2 clients refuse more than 300 s\)/.exec(old.body.error.message)?.[1])
    expect(age).toBeGreaterThanOrEqual(308)
    expect(age).toBeLessThan(340)
    expect(old.body.error.details).toMatchObject({verified: false, signatureHolds: true})
    const human = await c.run(['verify', '--scheme', 'epay-v2', '--data', answer(308), '--public-key', files.platformPublic])
    expect(human.code).toBe(3)
    expect(human.stderr).toMatch(/^Error: refused for its age: the signature holds, but its timestamp \d+ is 3\d\d s old/m)

    const fresh = await c.run(['verify', '--scheme', 'epay-v2', '--data', answer(5), '--public-key', files.platformPublic])
    expect(fresh.code).toBe(0)
    expect(fresh.stdout).toMatch(/^verified\tyes/m)
    expect(fresh.stderr).toContain('warning: data is outside the epay-v2 signature, which covers the flat fields only: nothing in it is verified')
    const json = await c.json(['verify', '--scheme', 'epay-v2', '--data', answer(5), '--public-key', files.platformPublic])
    expect(json.body.warnings).toEqual(['data is outside the epay-v2 signature, which covers the flat fields only: nothing in it is verified'])
  })

  it('epay-v2 --request: a request signed 400 s ago is refused for its age, as the platform refuses it', async () => {
    const merchantPem = `-----BEGIN PRIVATE KEY-----\n${fixture.v2.keys.merchant_private_key_pkcs8_b64}\n-----END PRIVATE KEY-----\n`
    const params = {pid: '1001', type: 'web', method: 'alipay', out_trade_no: 'E1', name: 'VIP', money: '1.00', timestamp: String(Math.floor(Date.now() / 1000) - 400)}
    const late = await c.run(['verify', '--scheme', 'epay-v2', '--request', '--data', new URLSearchParams({...params, sign: epayV2Sign(params, merchantPem), sign_type: 'RSA'}).toString(), '--public-key', files.merchantPublic])
    expect(late.code).toBe(3)
    expect(late.stderr).toMatch(/is 4\d\d s old \(the platform refuses more than 300 s\): sign it again with a fresh timestamp/)
  })

  it('refuses a sign_type of the other scheme (exit 2)', async () => {
    const v1 = fixture.v1.vectors[0].params
    const wrong = await c.run(['verify', '--scheme', 'epay-v2', '--data', JSON.stringify({...v1, sign_type: 'MD5'}), '--public-key', files.platformPublic])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('sign_type "MD5" does not belong to epay-v2, which signs with RSA only')
    const noKeyFile = await c.run(['verify', '--data', '{}', '--md5-key-file', files.md5])
    expect(noKeyFile.code).toBe(2)
  })
})
