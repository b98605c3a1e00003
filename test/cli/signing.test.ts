import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

interface Vector {
  name: string
  requestBody: string
  rawBody: string
  canonicalString: string
  signature: string
}
const vectors = JSON.parse(readFileSync(new URL('../fixtures/unipay-sign.json', import.meta.url), 'utf8')) as {
  keys: Record<'merchant' | 'platform', {privateKeyPkcs8Pem: string; publicKeySpkiPem: string}>
  requestVectors: Vector[]
  responseVectors: Vector[]
}

let c: Cli
const file = (name: string, text: string) => {
  const path = join(c.dir, name)
  writeFileSync(path, text, {mode: 0o600})
  return path
}
let merchantKey = ''
let merchantPublic = ''
let platformPublic = ''

beforeAll(() => {
  c = cli()
  merchantKey = file('merchant.pem', vectors.keys.merchant.privateKeyPkcs8Pem)
  merchantPublic = file('merchant-public.pem', vectors.keys.merchant.publicKeySpkiPem)
  platformPublic = file('platform-public.pem', vectors.keys.platform.publicKeySpkiPem)
})
afterAll(async () => {
  await c.cleanup()
})

describe('sign', () => {
  it.each(vectors.requestVectors.map((v): [string, Vector] => [v.name, v]))('reproduces %s (piped: two lines)', async (_name, vector) => {
    const body = file('body.json', vector.requestBody)
    const result = await c.run(['sign', '--data', `@${body}`, '--private-key', merchantKey])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${vector.canonicalString}\n${vector.signature}\n`)
  })

  it('gives {canonicalString, signature} with --json, reading stdin', async () => {
    const vector = vectors.requestVectors[0]
    const result = await c.json(['sign', '--data', '-', '--private-key', merchantKey], {input: vector.requestBody})
    expect(result.body).toEqual({ok: true, data: {canonicalString: vector.canonicalString, signature: vector.signature}, warnings: []})
  })
})

describe('verify', () => {
  it.each(vectors.responseVectors.map((v): [string, Vector] => [v.name, v]))('accepts %s', async (_name, vector) => {
    const result = await c.run(['verify', '--data', `@${file('r.json', vector.rawBody)}`, '--public-key', platformPublic])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(vector.canonicalString)
  })

  it('verifies a request with --request', async () => {
    const result = await c.run(['verify', '--request', '--data', `@${file('q.json', vectors.requestVectors[1].requestBody)}`, '--public-key', merchantPublic])
    expect(result.code).toBe(0)
  })

  it('exits 3 and names the difference: a field added after signing', async () => {
    const raw = vectors.responseVectors[0].rawBody.replace('"code":0,', '"code":0,"extra":"x",')
    const result = await c.json(['verify', '--data', `@${file('r.json', raw)}`, '--public-key', platformPublic])
    expect(result.code).toBe(3)
    expect(result.body.error.message).toBe(
      'signature does not verify: field added or dropped: the signature matches without `extra`, so it was added after signing or the signer leaves it out',
    )
    expect(result.body.error.details).toMatchObject({verified: false, matchingString: vectors.responseVectors[0].canonicalString})
  })

  it('exits 3 and names the difference: a number kept as written (12.50)', async () => {
    // What a signer that does not normalise decimals produces (the vector's note on json.Number).
    const {signString} = await import('../../src/protocol/signature.js')
    const {loadPrivateKey} = await import('../../src/protocol/keys.js')
    const raw = '{"code":0,"msg":"success","data":{"rate":12.50},"reqId":"R1","resTime":"2025-11-22 10:30:02"}'
    const signature = signString('code=0&data.rate=12.50&msg=success&reqId=R1&resTime=2025-11-22 10:30:02', loadPrivateKey(vectors.keys.platform.privateKeyPkcs8Pem))
    const body = raw.replace(/}$/, `,"sign":"${signature}"}`)
    const result = await c.run(['verify', '--data', `@${file('r.json', body)}`, '--public-key', platformPublic])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('number reformatted: the signer kept number literals as written (e.g. 12.50)')
    expect(result.stderr).toContain('string the signature matches: code=0&data.rate=12.50&')
  })

  it('exits 3 and names the key: signed with the merchant key instead of the platform key', async () => {
    const vector = vectors.responseVectors[0]
    const {signString} = await import('../../src/protocol/signature.js')
    const {loadPrivateKey} = await import('../../src/protocol/keys.js')
    const wrong = signString(vector.canonicalString, loadPrivateKey(vectors.keys.merchant.privateKeyPkcs8Pem))
    const body = vector.rawBody.replace(vector.signature, wrong)
    // the local profile's merchant key is not this one, so name the key explicitly via a profile
    await c.run(['profile', 'add', 'vec', '--base-url', 'https://x.example.com', '--mch-no', 'M1', '--private-key-file', merchantKey, '--platform-public-key-file', platformPublic])
    const result = await c.run(['verify', '--data', `@${file('r.json', body)}`, '--profile', 'vec'])
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/wrong key: the string is right, but it was signed with the merchant key of the profile/)
  })

  it('refuses a body without sign (exit 2)', async () => {
    const result = await c.run(['verify', '--data', '{"code":0}', '--public-key', platformPublic])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('the body has no sign field to verify')
  })
})
