// The support guide's walk-through (docs/guides/support.md: it starts from `lookup`) and its script
// recipes ("Scripts: pipes and --json") run as written against the local sandbox: one number's
// kind, report and next step; a failed refund and its reason through cut and jq, a sum with awk,
// one field of a record, and a check that an answer was verified with no warning.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, startPausedSandbox, type Cli} from '../helpers/cli.js'
import {runScript} from '../helpers/script.js'

const GUIDE = fileURLToPath(new URL('../../docs/guides/support.md', import.meta.url))

let c: Cli
let order = ''
let failed = ''

beforeAll(async () => {
  c = cli()
  await startPausedSandbox(c)
  const pay = async () => (await c.json(['pay', 'create', '--title', 'Tea', '--amount', '1250', '--auth-code', '134567890123456789'])).body.data.bizOrderNo as string
  order = await pay()
  expect((await c.run(['refund', 'create', '--biz-order-no', order, '--amount', '500'])).code).toBe(0)
  expect((await c.run(['refund', 'create', '--biz-order-no', await pay(), '--amount', '200'])).code).toBe(0)
  // a refund kept in progress (test:slow), then failed by the channel
  failed = (await c.json(['refund', 'create', '--biz-order-no', await pay(), '--amount', '300', '--reason', 'test:slow'])).body.data.bizRefundNo
  expect((await c.run(['sandbox', 'refund', 'settle', failed, '--fail'])).code).toBe(0)
  expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
  // the others are settled by the channel a second later
  expect((await c.run(['sandbox', 'clock', 'advance', '1s'])).code).toBe(0)
  expect((await c.json(['refunds', 'list', '--status', 'progress'])).body.data).toEqual([])
})

afterAll(async () => {
  await c.cleanup()
})

/** Runs a shell block of the guide as written, with `unipay` on the PATH, in the test's folder. */
/** A guide's script run as written: bash, strict, `unipay` on the PATH, the test CLI's environment. */
function runAsWritten(script: string, env: Record<string, string>): Promise<{code: number; stdout: string; stderr: string}> {
  return runScript(['bash', '-euo', 'pipefail'], script, {cwd: c.dir, env: {...c.env, ...env}})
}

describe('the support guide, one number', () => {
  it('the walk-through starts from lookup and runs as written: which kind it is, the report, the next step', async () => {
    const guide = readFileSync(GUIDE, 'utf8')
    const script = /^# Support staff: one number, the whole story\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(guide)![1]
    expect(script).toMatch(/^unipay lookup "\$NUMBER"/m)
    const {code, stdout, stderr} = await runAsWritten(script, {NUMBER: failed})
    expect(code, stderr).toBe(0)
    const refundNo = (await c.json(['query', 'refund', '--biz-refund-no', failed])).body.data.refundNo
    const lines = stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(`the bizRefundNo of a refund, ${refundNo}`)
    // the report's run prints the story too (piped: its lines)
    expect(lines).toContain(`matched\tbizRefundNo\trefund\t${refundNo}`)
    expect(lines.at(-1)).toBe(`refund ${failed} failed: the channel refused the refund (sandbox)`)
    expect(stderr).toContain(`report written to ${join(c.dir, 'ticket.md')}`)
    expect(readFileSync(join(c.dir, 'ticket.md'), 'utf8')).toContain(`# unipay lookup \`${failed}\``)
  })
})

describe('the support guide, Scripts', () => {
  it('the recipes run as written and print raw values', async () => {
    const readme = readFileSync(GUIDE, 'utf8')
    const script = /## Scripts: pipes and `--json`[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]
    const {code, stdout, stderr} = await runAsWritten(script, {ORDER: order})
    expect(code, stderr).toBe(0)
    expect(stdout.split('\n')).toEqual([
      `${failed}\t300\tthe channel refused the refund (sandbox)`,
      `${failed}\t300\tthe channel refused the refund (sandbox)`,
      '700',
      '750',
      'trusted',
      '',
    ])
  })
})
