// The support guide's script recipes (docs/guides/support.md, "Scripts: pipes and --json") run as written against the
// local sandbox: a failed refund and its reason through cut and jq, a sum with awk, one field of a
// record, and a check that an answer was verified with no warning.
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {waitFor} from '../helpers/sandbox.js'
import {runScript} from '../helpers/script.js'

const GUIDE = fileURLToPath(new URL('../../docs/guides/support.md', import.meta.url))

let c: Cli
let order = ''
let failed = ''

beforeAll(async () => {
  c = cli()
  expect((await c.run(['sandbox', 'start', '--time-scale', '50'])).code).toBe(0)
  const pay = async () => (await c.json(['pay', 'create', '--title', 'Tea', '--amount', '1250', '--auth-code', '134567890123456789'])).body.data.bizOrderNo as string
  order = await pay()
  expect((await c.run(['refund', 'create', '--biz-order-no', order, '--amount', '500'])).code).toBe(0)
  expect((await c.run(['refund', 'create', '--biz-order-no', await pay(), '--amount', '200'])).code).toBe(0)
  // a refund kept in progress (test:slow), then failed by the channel
  failed = (await c.json(['refund', 'create', '--biz-order-no', await pay(), '--amount', '300', '--reason', 'test:slow'])).body.data.bizRefundNo
  expect((await c.run(['sandbox', 'refund', 'settle', failed, '--fail'])).code).toBe(0)
  expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  await waitFor(async () => (await c.json(['refunds', 'list', '--status', 'progress'])).body.data.length === 0)
}, 60_000)

afterAll(async () => {
  await c.cleanup()
})

describe('the support guide, Scripts', () => {
  it('the recipes run as written and print raw values', async () => {
    const readme = readFileSync(GUIDE, 'utf8')
    const script = /## Scripts: pipes and `--json`[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]
    const {code, stdout, stderr} = await runScript(['bash', '-euo', 'pipefail'], script, {cwd: c.dir, env: {...c.env, ORDER: order}})
    expect(code, stderr).toBe(0)
    expect(stdout.split('\n')).toEqual([
      `${failed}\t300\tthe channel refused the refund (sandbox)`,
      `${failed}\t300\tthe channel refused the refund (sandbox)`,
      '700',
      '750',
      'trusted',
      '',
    ])
  }, 60_000)
})
