// Flags and prompts a person gets wrong: a mistyped flag is named with the one meant, Ctrl-C at
// a prompt is an interruption (130) in one line, keys generate says where it wrote, and a
// production transfer finds every mistake before it asks for --yes.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {terminal} from '../helpers/pty.js'

let c: Cli
let counter: Server
let hits = 0
let counterUrl = ''

beforeAll(async () => {
  c = cli()
  counter = createServer((_req, res) => {
    hits++
    res.end('{}')
  })
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', () => resolve()))
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`
})

afterAll(async () => {
  counter.close()
  await c.cleanup()
})

describe('flags', () => {
  it('a mistyped flag: did you mean the closest flag of that command', async () => {
    const result = await c.run(['pay', 'create', '--titel', 'X', '--amount', '1'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Nonexistent flag: --titel (did you mean --title?)')
    const json = await c.json(['refunds', 'list', '--stauts', 'fail'])
    expect(json.body.error.message).toContain('--stauts (did you mean --status?)')
    const far = await c.run(['pay', 'create', '--no-such-flag'])
    expect(far.stderr).toContain('Nonexistent flag: --no-such-flag')
    expect(far.stderr).not.toContain('did you mean')
  })
})

describe('oclif\'s own messages on a terminal', () => {
  it('print clean: a forgotten flag, flags that exclude each other (oclif dims them; the escapes showed as text)', async () => {
    for (const [args, message] of [
      [['mch', 'login'], 'Error: Missing required flag account\n'],
      [['verify', '--data', '{}', '--request', '--callback'], 'Error: --callback=true cannot also be provided when using --request\n'],
    ] as const) {
      const t = terminal([...args], {env: c.env})
      expect(await t.exited, args.join(' ')).toBe(2)
      expect(t.output(), args.join(' ')).toBe(message)
    }
  })
})

describe('keys generate', () => {
  it('says where it wrote the files; piped, only labelled lines', async () => {
    const result = await c.run(['keys', 'generate', '--name', 'shop'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`wrote shop-private.pem (0600) and shop-public.pem in ${join(c.dir, 'config', 'unipay', 'keys')} (--out-dir . writes them here)`)
    // piped: labelled lines a script can cut, the paths among them
    expect(result.stdout).toBe(`private key\t${join(c.dir, 'config', 'unipay', 'keys', 'shop-private.pem')}\npublic key\t${join(c.dir, 'config', 'unipay', 'keys', 'shop-public.pem')}\nfingerprint\t${/^fingerprint\t(.+)$/m.exec(result.stdout)?.[1]}\n`)
  })
})

describe('a production transfer', () => {
  it('reports a missing channel merchant before asking for --yes, and sends nothing', async () => {
    const keys = join(c.dir, 'prod-keys')
    expect((await c.run(['keys', 'generate', '--out-dir', keys, '--name', 'prod'])).code).toBe(0)
    const added = await c.run(['profile', 'add', 'prod', '--environment', 'production', '--base-url', counterUrl, '--mch-no', 'M1',
      '--private-key-file', join(keys, 'prod-private.pem'), '--platform-public-key-file', join(keys, 'prod-public.pem')])
    expect(added.code).toBe(0)
    const transfer = ['transfer', '--profile', 'prod', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088', '--amount', '100']
    const missing = await c.run(transfer)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('--channel-mch-no: is required\ngive --channel-mch-no, or set the profile\'s, which every transfer then uses: unipay profile set channelMchNo CHANNEL_MCH_NO --profile prod\n')
    expect(missing.stderr).not.toContain('--yes')
    // with every field right, it is --yes that is missing
    const unconfirmed = await c.run([...transfer, '--channel-mch-no', 'CM1'])
    expect(unconfirmed.code).toBe(2)
    expect(unconfirmed.stderr).toContain('pass --yes to confirm')
    expect(hits).toBe(0)
  })
})

describe('Ctrl-C at a prompt', () => {
  it('profile add: exit 130, one line, nothing saved', async () => {
    const t = terminal(['profile', 'add', 'asked'], {env: c.env})
    await t.waitFor(/Environment/)
    t.type('\u0003')
    expect(await t.exited).toBe(130)
    const after = t.output().slice(t.output().indexOf('Environment'))
    expect(after).toContain('Error: SIGINT: profile asked was not added')
    expect(after).not.toContain('force closed')
    expect(after.split('\n').filter((line) => /error/i.test(line))).toHaveLength(1)
    expect((await c.run(['profile', 'show', 'asked'])).code).toBe(2)
  })
})
