// Errors that name the fix: the key and profile in force, the command meant, the tool's own
// error style (and JSON document) for oclif's parse failures too.
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
let url = ''
beforeAll(async () => {
  c = cli()
  url = (await c.json(['sandbox', 'start'])).body.data.url
})
afterAll(async () => {
  await c.cleanup()
})

describe('errors that name the fix', () => {
  it('a wrong platform key: which file and fingerprint verified, and where the right key comes from', async () => {
    const keys = await c.json(['keys', 'generate', '--out-dir', join(c.dir, 'keys'), '--name', 'other'])
    const order = await c.json(['pay', 'create', '--title', 'Key check', '--amount', '5', '--auth-code', '134567890123456789'])
    const result = await c.run(['query', 'pay', '--biz-order-no', order.body.data.bizOrderNo, '--platform-public-key', keys.body.data.publicKeyFile])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(
      `verified with the platform key file ${keys.body.data.publicKeyFile} (${keys.body.data.fingerprint}, from --platform-public-key), asking profile local (mchNo M1000000001) at ${url}`,
    )
    expect(result.stderr).toContain('the local sandbox\'s key is printed by `unipay sandbox status --json` (platformPublicKey)')
    expect(result.stderr).not.toContain('BEGIN PUBLIC KEY')
  })

  it('a create whose answer does not verify names the key first, then the query that checks it once the key is right', async () => {
    const keys = await c.json(['keys', 'generate', '--out-dir', join(c.dir, 'keys3'), '--name', 'wrong'])
    const result = await c.json(['pay', 'create', '--title', 'Key check', '--amount', '5', '--biz-order-no', 'KEY-CHECK-1', '--platform-public-key', keys.body.data.publicKeyFile])
    expect(result.code).toBe(3)
    const hint: string = result.body.error.hint
    const key = `verified with the platform key file ${keys.body.data.publicKeyFile} (${keys.body.data.fingerprint}, from --platform-public-key), asking profile local (mchNo M1000000001) at ${url}`
    expect(hint).toContain(key)
    expect(hint).toContain('no answer can be believed until the platform key is right; then check with: unipay query pay --biz-order-no KEY-CHECK-1')
    expect(hint.indexOf(key)).toBeLessThan(hint.indexOf('check with'))
    expect(result.body.error.details).toMatchObject({outcomeUnknown: true, bizOrderNo: 'KEY-CHECK-1'})
    // the create was carried out: with the right key the query finds it
    expect((await c.json(['query', 'pay', '--biz-order-no', 'KEY-CHECK-1'])).body.data).toMatchObject({bizOrderNo: 'KEY-CHECK-1'})
  })

  it('a wrong platform key on a profile of its own points to the merchant console and profile set', async () => {
    const keys = await c.json(['keys', 'generate', '--out-dir', join(c.dir, 'keys2'), '--name', 'm'])
    expect((await c.run(['sandbox', 'merchants', 'add', 'M2000000007', '--public-key-file', keys.body.data.publicKeyFile])).code).toBe(0)
    // the merchant's own public key given as the platform's: a mistake easily made
    const added = await c.run(['profile', 'add', 'wrongkey', '--base-url', url, '--mch-no', 'M2000000007', '--private-key-file', keys.body.data.privateKeyFile, '--platform-public-key-file', keys.body.data.publicKeyFile])
    expect(added.code, added.stderr).toBe(0)
    const result = await c.json(['query', 'pay', '--biz-order-no', 'NOPE', '--profile', 'wrongkey'])
    expect(result.code).toBe(3)
    expect(result.body.error.hint).toContain(`platform key file ${keys.body.data.publicKeyFile} (${keys.body.data.fingerprint}, from the profile)`)
    expect(result.body.error.hint).toContain('`unipay profile set platformPublicKeyFile FILE --profile wrongkey`')
  })

  it('an order not found says which profile and address were asked', async () => {
    const result = await c.run(['query', 'pay', '--biz-order-no', 'NO-SUCH-ORDER'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('platform error 20041: trade not found')
    expect(result.stderr).toContain(`asked profile local (mchNo M1000000001) at ${url}: the order may be on another platform or under another merchant; --profile NAME asks another`)
  })

  it('an unknown command suggests the closest, in the tool\'s error style (exit 2)', async () => {
    const typo = await c.run(['pay', 'creat'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toBe('Error: unknown command "pay creat": did you mean pay create?\nrun: unipay pay create --help\n')
    const swapped = await c.run(['refund', 'lsit'])
    expect(swapped.stderr).toContain('did you mean refunds list?')
    const nothing = await c.run(['xyzzy'])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toBe('Error: unknown command "xyzzy"\n`unipay --help` lists the commands\n')
  })

  it('--json gives the JSON error document for unknown commands and missing required flags', async () => {
    const unknown = await c.json(['pay', 'creat'])
    expect(unknown.code).toBe(2)
    expect(unknown.body).toEqual({
      ok: false,
      error: {kind: 'usage', exitCode: 2, message: 'unknown command "pay creat": did you mean pay create?', hint: 'run: unipay pay create --help', suggestion: 'pay create'},
      warnings: [],
    })
    const missing = await c.json(['mch', 'login'])
    expect(missing.code).toBe(2)
    expect(missing.body).toEqual({ok: false, error: {kind: 'usage', exitCode: 2, message: 'Missing required flag account'}, warnings: []})
    const plain = await c.run(['mch', 'login'])
    expect(plain.stderr).toBe('Error: Missing required flag account\n')
  })
})
