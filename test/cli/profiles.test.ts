import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
beforeAll(() => {
  c = cli()
})
afterAll(async () => {
  await c.cleanup()
})

const mode = (file: string) => statSync(file).mode & 0o777

describe('keys and profiles', () => {
  let privateKeyFile = ''
  let privatePem = ''

  it('generates a key pair: private key 0600 and never printed', async () => {
    const result = await c.json(['keys', 'generate', '--out-dir', join(c.dir, 'keys'), '--name', 'shop'])
    expect(result.code).toBe(0)
    privateKeyFile = result.body.data.privateKeyFile
    privatePem = readFileSync(privateKeyFile, 'utf8')
    expect(mode(privateKeyFile)).toBe(0o600)
    expect(result.body.data.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/)
    const body = privatePem.split('\n')[1]
    expect(JSON.stringify(result.body)).not.toContain(body)
    const again = await c.run(['keys', 'generate', '--out-dir', join(c.dir, 'keys'), '--name', 'shop'])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('pass --force to overwrite')
    const loose = join(c.dir, 'keys', 'loose-private.pem')
    writeFileSync(loose, 'old', {mode: 0o644})
    expect((await c.run(['keys', 'generate', '--out-dir', join(c.dir, 'keys'), '--name', 'loose', '--force'])).code).toBe(0)
    expect(mode(loose)).toBe(0o600)
  })

  it('adds a profile from flags (no terminal) into a 0600 config file', async () => {
    const result = await c.run([
      'profile', 'add', 'staging', '--environment', 'sandbox', '--base-url', 'https://sandbox.pay.example.com', '--mch-no', 'M200',
      '--app-id', 'A200', '--private-key-file', privateKeyFile,
    ])
    expect(result.code).toBe(0)
    const config = join(c.dir, 'config', 'unipay', 'config.json')
    expect(mode(config)).toBe(0o600)
    expect(JSON.parse(readFileSync(config, 'utf8')).profiles.staging).toMatchObject({mchNo: 'M200', privateKeyFile})
  })

  it('refuses bad settings with a clear message', async () => {
    const badKey = join(c.dir, 'not-a-key.pem')
    writeFileSync(badKey, 'hello')
    const cases: [string[], string][] = [
      [['profile', 'add', 'x1', '--base-url', 'pay.example.com', '--mch-no', 'M'], 'baseUrl must be an http(s) address'],
      [['profile', 'add', 'x2', '--base-url', 'https://a', '--mch-no', 'M', '--private-key-file', badKey], 'not an RSA private key'],
      [['profile', 'add', 'x3', '--base-url', 'https://a'], '--mch-no: is required'],
      [['profile', 'add', 'local', '--base-url', 'https://a', '--mch-no', 'M'], '"local" is the built-in local sandbox profile'],
      [['profile', 'add', 'staging', '--base-url', 'https://a', '--mch-no', 'M'], 'profile "staging" exists'],
      [['profile', 'set', 'colour', 'blue', '--profile', 'staging'], 'unknown setting "colour"'],
    ]
    for (const [args, message] of cases) {
      const result = await c.run(args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toContain(message)
    }
  })

  it('lists, switches, shows without secrets, sets from stdin, removes', async () => {
    const list = await c.json(['profile', 'list'])
    expect(list.body.data.map((p: {name: string; active: boolean}) => [p.name, p.active])).toEqual([
      ['local', true],
      ['staging', false],
    ])
    expect((await c.run(['profile', 'use', 'staging'])).code).toBe(0)
    expect((await c.run(['profile', 'use', 'nope'])).code).toBe(2)

    const secret = 'md5-secret-value-42'
    const set = await c.run(['profile', 'set', 'md5Key', '-'], {input: `${secret}\n`})
    expect(set.code).toBe(0)
    expect(set.stdout + set.stderr).not.toContain(secret)

    const shown = await c.run(['profile', 'show'])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/^md5Key\t\(set, hidden\)$/m)
    expect(shown.stdout).toMatch(/^private key\tSHA256:\S+$/m)
    expect(shown.stdout).not.toContain(secret)
    expect(shown.stdout).not.toContain(privatePem.split('\n')[1])
    const json = await c.json(['profile', 'show'])
    expect(JSON.stringify(json.body)).not.toContain(secret)
    expect(json.body.data).toMatchObject({name: 'staging', active: true, mchNo: 'M200', md5Key: '(set, hidden)'})

    expect((await c.run(['profile', 'set', 'appId', '--unset'])).code).toBe(0)
    expect((await c.json(['profile', 'show'])).body.data.appId).toBeUndefined()

    expect((await c.run(['profile', 'remove', 'staging'])).code).toBe(0)
    expect((await c.json(['profile', 'list'])).body.data).toEqual([expect.objectContaining({name: 'local', active: true})])
    expect((await c.run(['profile', 'remove', 'local'])).code).toBe(2)
  })

  it('takes profile, address and keys from UNIPAY_* variables, below flags', async () => {
    const result = await c.json(['pay', 'create', '--title', 'x', '--amount', '1', '--dry-run'], {})
    expect(result.body.request.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/unipay\/pay$/)
    const viaEnv = await c.run(['pay', 'create', '--title', 'x', '--amount', '1', '--dry-run', '--json'], {
      env: {UNIPAY_BASE_URL: 'https://env.example.com'},
    })
    expect(JSON.parse(viaEnv.stdout).request.url).toBe('https://env.example.com/unipay/pay')
    const flagWins = await c.run(['pay', 'create', '--title', 'x', '--amount', '1', '--dry-run', '--json', '--base-url', 'https://flag.example.com'], {
      env: {UNIPAY_BASE_URL: 'https://env.example.com'},
    })
    expect(JSON.parse(flagWins.stdout).request.url).toBe('https://flag.example.com/unipay/pay')
    const missing = await c.run(['ping'], {env: {UNIPAY_PROFILE: 'ghost'}})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no profile named "ghost"')
  })

  it('signs a profile\'s channelMchNo into transfers only: other calls route normally unless --channel-mch-no asks', async () => {
    expect((await c.run(['profile', 'add', 'direct', '--base-url', 'https://sandbox.pay.example.com', '--mch-no', 'M201', '--private-key-file', privateKeyFile, '--channel-mch-no', 'CM201'])).code).toBe(0)
    const signed = async (args: string[]) => (await c.json([...args, '--profile', 'direct', '--dry-run'])).body.request.body
    for (const args of [
      ['pay', 'create', '--title', 'x', '--amount', '1'],
      ['refund', 'create', '--biz-order-no', 'B1', '--amount', '1'],
      ['query', 'pay', '--biz-order-no', 'B1'],
      ['gateway', 'prepay', '--type', 'cashier', '--title', 'x', '--amount', '1'],
      ['ping'],
      ['api', '/unipay/ping'],
    ]) {
      expect(await signed(args), args.join(' ')).not.toHaveProperty('channelMchNo')
      expect(await signed([...args, '--channel-mch-no', 'CM9']), args.join(' ')).toMatchObject({channelMchNo: 'CM9'})
    }
    const transfer = ['transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088', '--amount', '100']
    expect(await signed(transfer)).toMatchObject({channelMchNo: 'CM201'})
    expect(await signed([...transfer, '--channel-mch-no', 'CM9'])).toMatchObject({channelMchNo: 'CM9'})
  })

  it('warns when a private key file is readable by others', async () => {
    const loose = join(c.dir, 'loose.pem')
    writeFileSync(loose, privatePem, {mode: 0o644})
    const result = await c.run(['sign', '--data', '{"a":1}', '--profile', 'local', '--private-key', loose])
    expect(result.code).toBe(0)
    const viaProfile = await c.run(['ping', '--private-key', loose, '--dry-run'])
    expect(viaProfile.stderr).toContain(`private key file ${loose} is readable by other users`)
  })
})

describe('keys generate: the next step it prints', () => {
  const nextStep = (stderr: string) => /^next: register the public key with the platform, then: unipay (.+)$/m.exec(stderr)?.[1].split(' ') ?? []

  it('adds a profile while the built-in local one is active, then sets the active profile\'s key, each as printed', async () => {
    const k = cli()
    try {
      const first = await k.run(['keys', 'generate', '--out-dir', join(k.dir, 'keys'), '--name', 'shop'])
      expect(first.code).toBe(0)
      const shopKey = join(k.dir, 'keys', 'shop-private.pem')
      const platformKey = join(k.dir, 'keys', 'shop-public.pem')
      const add = nextStep(first.stderr)
      expect(add).toEqual(['profile', 'add', 'NAME', '--base-url', 'URL', '--mch-no', 'MCH_NO', '--app-id', 'APP_ID', '--private-key-file', shopKey, '--platform-public-key-file', 'PLATFORM_KEY_FILE', '--use'])
      const filled: Record<string, string> = {NAME: 'staging', URL: 'https://pay.example.com', MCH_NO: 'M300', APP_ID: 'A300', PLATFORM_KEY_FILE: platformKey}
      expect((await k.run(add.map((word) => filled[word] ?? word))).code).toBe(0)

      const second = await k.run(['keys', 'generate', '--out-dir', join(k.dir, 'keys'), '--name', 'rotated'])
      const rotatedKey = join(k.dir, 'keys', 'rotated-private.pem')
      const set = nextStep(second.stderr)
      expect(set).toEqual(['profile', 'set', 'privateKeyFile', rotatedKey, '--profile', 'staging'])
      expect((await k.run(set)).code).toBe(0)
      expect((await k.json(['profile', 'show', '--json'])).body.data).toMatchObject({name: 'staging', privateKeyFile: rotatedKey})
    } finally {
      await k.cleanup()
    }
  })
})
