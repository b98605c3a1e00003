// The finance guide's walk-through (docs/guides/finance.md) runs as written against a local
// sandbox: three orders paid, one refunded, a ledger with one mistake, and reconcile naming it.
// What the guide shows of the terminal is what an 80-column terminal shows.
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {onTerminal} from '../helpers/pty.js'
import {runScript} from '../helpers/script.js'

const GUIDE = fileURLToPath(new URL('../../docs/guides/finance.md', import.meta.url))

let c: Cli
beforeAll(() => {
  c = cli()
})
afterAll(async () => {
  await c.cleanup()
})

describe('the finance guide, walk-through', () => {
  it('runs as written: the mistake is the one difference (exit 5), and the terminal shows what the guide shows', async () => {
    const guide = readFileSync(GUIDE, 'utf8')
    const script = /## Walk-through on the local sandbox[\s\S]*?```sh\n([\s\S]*?)```/.exec(guide)![1]
    const shop = join(c.dir, 'shop')
    mkdirSync(shop)
    const {code, stdout, stderr} = await runScript(['bash', '-uo', 'pipefail'], script, {cwd: shop, env: c.env})
    expect(code, stderr).toBe(5)
    expect(stderr).not.toContain('Error')
    const lines = stdout.trim().split('\n')
    expect(lines.slice(-2)).toEqual([
      'line\tkind\tnumber\tplatformNo\tdifference\tledger\tplatform\tcode\tmessage',
      expect.stringMatching(/^5\tpay\tSHOP-1003\tDP\d+\tamount differs\t540\t450\t\tamount: ledger 540 \(¥5\.40\), platform 450 \(¥4\.50\)$/),
    ])
    expect(stderr).toContain('ledger.csv: 4 of 4 rows compared, 3 matched, 1 differ')

    const shown = /On a terminal the last command shows[\s\S]*?```console\n\$ unipay reconcile ledger.csv\n([\s\S]*?)```/.exec(guide)![1]
    const ledger = join(shop, 'ledger.csv')
    const {output} = await onTerminal(['reconcile', ledger], c.env, 80)
    const screen = output
      // eslint-disable-next-line no-control-regex -- the terminal's own escape sequences are taken out
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
      .split('\n')
      .map((line) => line.replace(/^.*\r(?!$)/, '').trimEnd())
      .filter((line) => line && !line.startsWith('rows ['))
      .join('\n')
      .replaceAll(ledger, 'ledger.csv')
    expect(screen).toBe(shown.trimEnd())
  })
})
