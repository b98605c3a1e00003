// Start-up is most of a call's time: these pin down what a run may load, so that a later import
// cannot quietly bring back a heavy module (docs/performance.md, "Dependencies and start-up").
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import module from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {sdkSigned} from '../helpers/sdk.js'
import {cli, type Cli} from '../helpers/cli.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const OUR_DIST = fileURLToPath(new URL('../../dist/', import.meta.url))
const REGISTER = fileURLToPath(new URL('../helpers/loaded-modules/register.mjs', import.meta.url))

let c: Cli

beforeAll(async () => {
  c = cli()
  const pair = generateRsaKeyPair()
  writeFileSync(join(c.dir, 'merchant.pem'), pair.privateKeyPem, {mode: 0o600})
  writeFileSync(join(c.dir, 'platform.pem'), pair.publicKeyPem)
  // a signed request body, as the bench's `verify` of a file checks (scripts/bench.mjs)
  const body = {mchNo: 'M1', appId: 'A1', reqId: 'R1', reqTime: '2025-01-01 00:00:00', title: 'x', amount: 100, goodsDetail: [{goodsId: 'G1', quantity: 1}]}
  writeFileSync(join(c.dir, 'signed.json'), JSON.stringify(sdkSigned(body, pair.privateKeyPem)))
  // a remote profile: a dry run then loads what a real call loads, without a local sandbox
  const added = await c.run(['profile', 'add', 'remote', '--base-url', 'http://127.0.0.1:9', '--mch-no', 'M1', '--private-key-file', join(c.dir, 'merchant.pem'), '--platform-public-key-file', join(c.dir, 'platform.pem')])
  expect(added.code).toBe(0)
})

afterAll(async () => {
  await c.cleanup()
})

/** The files and URLs of every module one run loaded. */
function loadedBy(args: string[]): string[] {
  const file = join(c.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`)
  const env: NodeJS.ProcessEnv = {...c.env, UNIPAY_LOADED_MODULES: file}
  delete env.NODE_COMPILE_CACHE
  const result = spawnSync(process.execPath, ['--import', REGISTER, BIN, ...args], {env, encoding: 'utf8'})
  expect(result.status, result.stderr).toBe(0)
  const loaded = readFileSync(file, 'utf8').split('\n').filter(Boolean)
  rmSync(file)
  // the mechanism works: oclif itself is always seen, CommonJS (require cache) and ES (our bin) alike
  expect(loaded.some((entry) => entry.includes('/node_modules/@oclif/core/lib/config/'))).toBe(true)
  expect(loaded.some((entry) => entry.endsWith('/bin/run.js'))).toBe(true)
  return loaded
}

/** Our own modules a run loaded, as paths under dist/. */
const ours = (loaded: string[]) =>
  loaded.map((entry) => entry.replace(/^file:\/\//, '')).filter((path) => path.startsWith(OUR_DIST)).map((path) => path.slice(OUR_DIST.length))

const packages = (loaded: string[]) => new Set(loaded.map((entry) => /\/node_modules\/((@[^/]+\/)?[^/]+)\//.exec(entry)?.[1]).filter(Boolean))

// Each of these cost a measurable share of a start (docs/performance.md, "Dependencies and start-up").
const HEAVY = ['zod', 'got', 'semver', 'conf', '@inquirer/prompts', 'qrcode', 'csv-parse', 'csv-stringify', 'cli-progress']

// What `sign` and `verify` of a file load of ours besides their own command and service: each
// module added here is loaded by every such run (docs/performance.md, "Dependencies and start-up").
const SIGNATURE_MODULES = [
  'cli/base.js',
  'cli/input.js',
  'errors.js',
  'output/io.js',
  'profiles/store.js',
  'profiles/model.js',
  'protocol/canonical.js',
  'protocol/json.js',
  'protocol/keys.js',
  'protocol/money.js',
  'protocol/printable.js',
  'protocol/signature.js',
]

// What a signed call (pay create, query pay) loads of ours besides its command: the signature's
// modules, the client, the profile and the local sandbox's address. No renderer for --json, no
// oclif index (the commands take their flags from cli/base.ts).
const SIGNED_CALL_MODULES = [
  ...SIGNATURE_MODULES.filter((name) => name !== 'cli/input.js'),
  'client/http.js',
  'client/pipeline.js',
  'local-sandbox/lifecycle.js',
  'local-sandbox/liveness.js',
  'local-sandbox/location.js',
  'local-sandbox/start-lock.js',
  'profiles/resolve.js',
  // the rule for a URL the platform calls (notifyUrl, returnUrl), which the field rules use
  'protocol/addresses.js',
  'protocol/diagnose.js',
  // every endpoint's field rules (no zod: field-rules.ts)
  'protocol/endpoints.js',
  'protocol/enums.js',
  'protocol/envelope.js',
  'protocol/field-rules.js',
  // what is refused in an answer before any of it is believed (protocol-notes section 1)
  'protocol/foreign-input.js',
  'protocol/local-sandbox.js',
  'protocol/schemas.js',
  'protocol/time.js',
  'services/call.js',
  'services/pay.js',
]

const OCLIF_INDEX = '/node_modules/@oclif/core/lib/index.js'

describe('what a run loads', () => {
  it('--version loads oclif and nothing of ours or of the heavy modules', () => {
    const loaded = loadedBy(['--version'])
    const found = packages(loaded)
    for (const name of [...HEAVY, 'lossless-json', 'cli-table3', '@oclif/plugin-help', '@oclif/plugin-autocomplete']) expect(found, name).not.toContain(name)
    expect(loaded.filter((entry) => entry.replace(/^file:\/\//, '').startsWith(OUR_DIST))).toEqual([])
  })

  it('pay create and query pay load no heavy module, no oclif index, no renderer for --json and only what a signed call needs', () => {
    for (const [args, own] of [
      [['pay', 'create', '--title', 'x', '--amount', '1'], ['commands/pay/create.js', 'cli/input.js']],
      [['query', 'pay', '--order-no', 'P1'], ['commands/query/pay.js']],
    ]) {
      const loaded = loadedBy([...args, '--profile', 'remote', '--dry-run', '--json'])
      const found = packages(loaded)
      for (const name of HEAVY) expect(found, `${args.join(' ')}: ${name}`).not.toContain(name)
      // it is a real run: the protocol layer was loaded
      expect(found).toContain('lossless-json')
      expect(loaded.filter((entry) => entry.includes(OCLIF_INDEX)), args.join(' ')).toEqual([])
      expect(new Set(ours(loaded)), args.join(' ')).toEqual(new Set([...own, ...SIGNED_CALL_MODULES]))
    }
  })

  // every endpoint's rules are checked without zod, not only those of pay create and query pay
  it('any signed call loads no zod: refund, allocation, transfer, gateway order, or any path', () => {
    for (const args of [
      ['refund', 'create', '--biz-order-no', 'B1', '--amount', '1'],
      ['alloc', '--biz-order-no', 'B1', '--receiver', 'USER_ID:2088:0.01'],
      ['transfer', '--channel', 'walletB', '--channel-mch-no', 'CM1', '--payee-type', 'user_id', '--payee-account', '2088', '--amount', '1'],
      ['gateway', 'prepay', '--type', 'cashier', '--title', 'x', '--amount', '1'],
      ['api', '/unipay/refund', '--data', '{"bizOrderNo":"B1","amount":1}'],
    ]) {
      const loaded = loadedBy([...args, '--profile', 'remote', '--dry-run', '--json'])
      expect(ours(loaded), args.join(' ')).toContain('protocol/field-rules.js')
      expect(packages(loaded), args.join(' ')).not.toContain('zod')
    }
  })

  // From Node 22 on, an ES import of node:http builds a facade of all its exports, and reading
  // its WebSocket getters loads undici: about 30 ms of a start on Node 24.
  it('a call to the local sandbox takes node:http without an ES import, and keeps compiled code where Node can', () => {
    const loaded = loadedBy(['pay', 'create', '--title', 'x', '--amount', '1', '--json'])
    expect(packages(loaded)).toContain('lossless-json')
    expect(loaded.filter((entry) => /^node:https?$/.test(entry))).toEqual([])
    // Node 22.1 and later: the compile cache is on, in the CLI's cache folder; Node 20 has none
    expect(existsSync(join(c.dir, 'cache', 'unipay', 'compile-cache'))).toBe('enableCompileCache' in module)
  })

  // verify of a body that verifies: what explains a failure (diagnosis, the easy_pay and epay
  // rules), the API client, the profile resolver and oclif's index load only when needed.
  it('verify of a file that verifies loads no heavy module, no oclif index and only what checks a signature', () => {
    const loaded = loadedBy(['verify', '--data', `@${join(c.dir, 'signed.json')}`, '--public-key', join(c.dir, 'platform.pem'), '--request', '--json'])
    const found = packages(loaded)
    for (const name of HEAVY) expect(found, name).not.toContain(name)
    expect(loaded.filter((entry) => entry.includes(OCLIF_INDEX))).toEqual([])
    // foreign-input: what is refused before any signature is believed (protocol-notes section 1)
    expect(new Set(ours(loaded))).toEqual(new Set(['commands/verify.js', 'services/verify.js', 'protocol/foreign-input.js', ...SIGNATURE_MODULES]))
  })

  // sign of a file: the same diet as verify (no compatibility module, no table for --json)
  it('sign of a file loads no heavy module, no oclif index and only what makes a signature', () => {
    const body = join(c.dir, 'signed.json')
    const loaded = loadedBy(['sign', '--data', `@${body}`, '--private-key', join(c.dir, 'merchant.pem'), '--json'])
    for (const name of HEAVY) expect(packages(loaded), name).not.toContain(name)
    expect(loaded.filter((entry) => entry.includes(OCLIF_INDEX))).toEqual([])
    expect(new Set(ours(loaded))).toEqual(new Set(['commands/sign.js', 'services/sign.js', 'protocol/epay.js', ...SIGNATURE_MODULES]))
  })
})
