// No private key, MD5 key, session token or password may appear in any output, --debug and
// --json included.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
const secrets: string[] = []
const password = 'pa55-Secret-word'
const md5Key = 'md5-secret-0123456789abcdef'

beforeAll(async () => {
  c = cli()
  expect((await c.run(['ping'])).code).toBe(0)
  const runtime = JSON.parse(readFileSync(join(c.dir, 'data', 'unipay', 'sandbox', 'runtime.json'), 'utf8'))
  const platformFile = join(c.dir, 'platform.pem')
  writeFileSync(platformFile, runtime.platformPublicKeyPem)
  const privatePem = readFileSync(runtime.merchant.privateKeyFile, 'utf8')
  // every line of the key body, so that a partial leak is caught too
  secrets.push(...privatePem.split('\n').filter((line) => line.length > 20 && !line.startsWith('-----')))
  secrets.push(md5Key, password)
  const added = await c.run([
    'profile', 'add', 'full', '--base-url', runtime.url, '--mch-no', runtime.merchant.mchNo, '--app-id', runtime.merchant.appId,
    '--private-key-file', runtime.merchant.privateKeyFile, '--platform-public-key-file', platformFile, '--use',
  ])
  expect(added.code).toBe(0)
  expect((await c.run(['profile', 'set', 'md5Key', '-'], {input: md5Key})).code).toBe(0)
  expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: password})).code).toBe(0)
  expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin', '--debug'], {input: password})).code).toBe(0)
  const token = JSON.parse(readFileSync(join(c.dir, 'config', 'unipay', 'config.json'), 'utf8')).profiles.full.token as string
  expect(token.length).toBeGreaterThan(20)
  secrets.push(token)
})
afterAll(async () => {
  await c.cleanup()
})

describe('secrets never printed', () => {
  it('in any command, with --debug and --json', async () => {
    const order = (await c.json(['pay', 'create', '--title', 'S', '--amount', '100', '--auth-code', '134567890123456789'])).body.data
    const refund = (await c.json(['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '10'])).body.data
    const runs: string[][] = [
      ['pay', 'create', '--title', 'S', '--amount', '1'],
      ['pay', 'create', '--title', 'S', '--amount', '1', '--dry-run'],
      ['query', 'pay', '--biz-order-no', order.bizOrderNo],
      ['pay', 'sync', '--biz-order-no', order.bizOrderNo],
      ['refund', 'create', '--biz-order-no', order.bizOrderNo, '--amount', '1'],
      ['query', 'refund', '--refund-no', refund.refundNo],
      ['refund', 'sync', '--refund-no', refund.refundNo],
      ['refunds', 'list', '--all'],
      ['transfer', '--channel', 'walletB', '--channel-mch-no', 'CM', '--payee-type', 'user_id', '--payee-account', '2088', '--amount', '5'],
      ['ping'],
      ['api', '/unipay/query/pay-order', '-f', `bizOrderNo=${order.bizOrderNo}`],
      ['sign', '--data', '{"a":1}'],
      ['verify', '--request', '--data', '{"a":1,"sign":"AAAA"}'],
      ['profile', 'show'],
      ['profile', 'show', 'full'],
      ['profile', 'list'],
      ['sandbox', 'status'],
      ['sandbox', 'callbacks', 'list'],
      ['mch', 'login', '--account', 'ops', '--password-stdin'],
      ['mch', 'login', '--account', 'ops', '--password-stdin', '--profile', 'local'],
      ['query', 'pay', '--order-no', 'missing'],
      ['pay', 'create', '--title', 'S', '--amount', '0'],
    ]
    for (const args of runs) {
      for (const mode of [['--debug', '--json'], ['--debug']]) {
        const result = await c.run([...args, ...mode], {input: args[0] === 'mch' ? password : ''})
        const output = result.stdout + result.stderr
        for (const secret of secrets) expect(output, `unipay ${[...args, ...mode].join(' ')} printed a secret`).not.toContain(secret)
      }
    }
    expect((await c.run(['ping', '--debug'])).stderr).toContain('[debug] string to sign:')
  })
})
