import {execFileSync} from 'node:child_process'
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

/**
 * What bash offers after `line` (the last word being completed), once each as bash shows it: a
 * name that is both a command and a topic (`transfer batch`, `transfer batch status`) is listed twice.
 */
function complete(functions: string, words: string[]): string[] {
  const script = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; _unipay_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
  return [...new Set(execFileSync('bash', ['-c', script, 'complete', functions, ...words], {encoding: 'utf8'}).split('\n').filter(Boolean))]
}

describe('shell completion', () => {
  it('completes commands with spaces between topics, and their flags', async () => {
    const setup = await c.run(['autocomplete', 'bash'])
    expect(setup.code).toBe(0)
    expect(setup.stdout).toContain('unipay autocomplete script bash')
    const functions = join(c.dir, 'cache', 'unipay', 'autocomplete', 'functions', 'bash', 'unipay.bash')
    expect(complete(functions, ['unipay', 'pay', 'cr'])).toEqual(['create'])
    expect(complete(functions, ['unipay', 'refund', 'create', '--biz-r'])).toEqual(['--biz-refund-no'])
    expect(complete(functions, ['unipay', 'transfer', 'ba'])).toEqual(['batch'])
  })
})
