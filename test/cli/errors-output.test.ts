// What errors and results print when a script or a person must act on them: a hostile error
// message from an unsigned answer arrives inert on every path, the --json document says whether
// the answer was verified and what was warned, and a bug in the CLI has an exit code of its own.
import {mkdirSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Config} from '@oclif/core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BaseCommand} from '../../src/cli/base.js'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {cli, type Cli} from '../helpers/cli.js'
import {onTerminal} from '../helpers/pty.js'

// An attacker's message: retitle the window, clear it, paint a fake green line, an 8-bit CSI,
// a C1 OSC, and a right-to-left override.
const HOSTILE = 'bad\u001b]0;pwned\u0007\u001b[2J\u001b[32m✓ verified\u001b[0m\u009b2J\u009d0;x\u0007\u202eesrever'
// eslint-disable-next-line no-control-regex -- what must never reach a terminal from outside
const LIVE = /[\u001b\u0007\u009b\u009d\u202e]/

let c: Cli
let platform: Server
let url = ''

beforeAll(async () => {
  c = cli()
  // a platform (or anything on its address) answering an unsigned error with a hostile message
  platform = createServer((_req, res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({code: 40001, msg: HOSTILE}))
  })
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', () => resolve()))
  url = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`
  const pair = generateRsaKeyPair()
  writeFileSync(join(c.dir, 'merchant.pem'), pair.privateKeyPem, {mode: 0o600})
  writeFileSync(join(c.dir, 'platform.pem'), pair.publicKeyPem)
  const added = await c.run(['profile', 'add', 'hostile', '--base-url', url, '--mch-no', 'M1', '--private-key-file', join(c.dir, 'merchant.pem'), '--platform-public-key-file', join(c.dir, 'platform.pem')])
  expect(added.code).toBe(0)
})

afterAll(async () => {
  platform.close()
  await c.cleanup()
})

describe('an unsigned error message with escape sequences', () => {
  it('is printed inert when piped: every control shown as \\u escape', async () => {
    const result = await c.run(['query', 'pay', '--order-no', 'X', '--profile', 'hostile'])
    expect(result.code).toBe(1)
    expect(result.stderr).not.toMatch(LIVE)
    expect(result.stderr).toContain('platform error 40001: bad\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[32m✓ verified')
    expect(result.stderr).toContain('\\u202eesrever (unsigned answer)')
  })

  it('is printed inert on a terminal', async () => {
    const {output, code} = await onTerminal(['query', 'pay', '--order-no', 'X', '--profile', 'hostile'], c.env, 100)
    expect(code).toBe(1)
    expect(output).toContain('platform error 40001')
    expect(output).not.toMatch(LIVE)
  })

  it('stays JSON with --json, the message intact once parsed', async () => {
    const result = await c.run(['query', 'pay', '--order-no', 'X', '--profile', 'hostile', '--json'])
    expect(result.code).toBe(1)
    expect(result.stdout).not.toMatch(LIVE)
    expect(JSON.parse(result.stdout).error.message).toBe(`platform error 40001: ${HOSTILE} (unsigned answer)`)
  })
})

describe('the --json document', () => {
  it('says whether the answer was verified, and carries the warnings stderr showed', async () => {
    const order = await c.json(['pay', 'create', '--title', 'x', '--amount', '1'])
    expect(order.code).toBe(0)
    expect(order.body).toMatchObject({ok: true, verified: true, warnings: []})
    const unverified = await c.json(['query', 'pay', '--order-no', order.body.data.orderNo, '--no-verify'])
    expect(unverified.code).toBe(0)
    expect(unverified.body).toMatchObject({ok: true, verified: false, warnings: ['--no-verify: answers are NOT verified; do not trust them']})
    expect(unverified.stderr).toContain('warning: --no-verify: answers are NOT verified')
    const failed = await c.json(['query', 'pay', '--order-no', 'X', '--profile', 'hostile', '--no-verify'])
    expect(failed.body).toMatchObject({ok: false, warnings: ['--no-verify: answers are NOT verified; do not trust them']})
  })
})

describe('a bug in the CLI', () => {
  // A command whose run has a bug (a TypeError), run through the real BaseCommand.catch
  class Buggy extends BaseCommand {
    static id = 'buggy'
    async run(): Promise<void> {
      const answer = JSON.parse('{"data":null}') as {data: {status: string}}
      this.io.out(answer.data.status)
    }
  }

  const run = async (argv: string[]) => {
    const config = await Config.load({root: fileURLToPath(new URL('../..', import.meta.url))})
    const command = new Buggy(argv, config)
    let stdout = ''
    let stderr = ''
    command.io = {out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`), stdoutTty: false, stdinTty: false}
    await (command as unknown as {_run(): Promise<unknown>})._run()
    process.exitCode = undefined
    return {code: command.exitCode, stdout, stderr}
  }

  it('exits 70 (not 1, the platform\'s) with a line asking to report it', async () => {
    const plain = await run([])
    expect(plain.code).toBe(70)
    expect(plain.stderr).toMatch(/^Error: Cannot read properties of null \(reading 'status'\)\nthis is a bug in unipay, not in your input or the platform: please report it with the command you ran and its --debug output\n$/)
    const json = await run(['--json'])
    expect(json.code).toBe(70)
    expect(JSON.parse(json.stdout).error).toMatchObject({kind: 'internal', exitCode: 70, hint: expect.stringContaining('please report it')})
  })
})

describe('an error outside every command (a plugin\'s, oclif\'s loading)', () => {
  // A linked plugin in the user's data folder, as `plugins link` leaves it: its commands run
  // through oclif, never through BaseCommand.catch, so what they throw reaches bin/run.js.
  let own: Cli
  beforeAll(() => {
    own = cli({process: true})
    const root = join(own.dir, 'plugin')
    mkdirSync(join(root, 'commands'), {recursive: true})
    writeFileSync(join(root, 'package.json'), JSON.stringify({name: 'boom', version: '1.0.0', type: 'module', oclif: {commands: './commands'}}))
    const command = (body: string) => `export default class C {\n  static description = 'a plugin command'\n  static async run() {\n    ${body}\n  }\n}\n`
    writeFileSync(join(root, 'commands', 'boom.js'), command('return undefined.value'))
    writeFileSync(join(root, 'commands', 'usage.js'), command("throw Object.assign(new Error('--colour is not a flag of usage'), {oclif: {exit: 2}})"))
    writeFileSync(join(root, 'commands', 'unloadable.js'), "throw new RangeError('the plugin failed to load')\n")
    // its manifest, so that a command's file is loaded only when the command runs
    const entry = (id: string) => [id, {id, pluginName: 'boom', pluginType: 'link', aliases: [], flags: {}, args: {}, description: 'a plugin command'}]
    writeFileSync(join(root, 'oclif.manifest.json'), JSON.stringify({version: '1.0.0', commands: Object.fromEntries(['boom', 'usage', 'unloadable'].map(entry))}))
    mkdirSync(join(own.dir, 'data', 'unipay'), {recursive: true})
    writeFileSync(join(own.dir, 'data', 'unipay', 'package.json'), JSON.stringify({oclif: {plugins: [{type: 'link', name: 'boom', root}]}}))
  })
  afterAll(async () => {
    await own.cleanup()
  })

  const BUG = 'this is a bug in unipay, not in your input or the platform: please report it with the command you ran and its --debug output'

  it('a failure that is not oclif\'s own exits 70 with the line asking to report it (it was 1, the platform\'s code)', async () => {
    const thrown = await own.run(['boom'])
    expect(thrown).toMatchObject({code: 70, stdout: '', stderr: `Error: Cannot read properties of undefined (reading 'value')\n${BUG}\n`})
    const json = await own.run(['boom', '--json'])
    expect(json.code).toBe(70)
    expect(JSON.parse(json.stdout)).toEqual({ok: false, error: {kind: 'internal', exitCode: 70, message: "Cannot read properties of undefined (reading 'value')", hint: BUG}, warnings: []})
    const unloadable = await own.run(['unloadable'])
    expect(unloadable.code).toBe(70)
    expect(unloadable.stderr).toMatch(/^Error: the plugin failed to load\n/)
    expect(unloadable.stderr).toContain(BUG)
  })

  it('oclif\'s own errors keep their documented codes: unknown command, nonexistent flag, a usage error (2)', async () => {
    expect(await own.run(['usage'])).toMatchObject({code: 2, stderr: expect.stringContaining('--colour is not a flag of usage')})
    expect(await own.run(['nope'])).toMatchObject({code: 2, stderr: expect.stringContaining('unknown command "nope"')})
    expect(await own.run(['pay', 'create', '--titel', 'T'])).toMatchObject({code: 2, stderr: expect.stringContaining('Nonexistent flag: --titel (did you mean --title?)')})
    expect(await own.run(['help', 'nope'])).toMatchObject({code: 2, stderr: expect.stringContaining('Command nope not found')})
  })
})
