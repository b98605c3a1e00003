// What errors and results print when a script or a person must act on them: a hostile error
// message from an unsigned answer arrives inert on every path, the --json document says whether
// the answer was verified and what was warned, and a bug in the CLI has an exit code of its own.
import {writeFileSync} from 'node:fs'
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
