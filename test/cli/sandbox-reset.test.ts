// `sandbox reset` forgets every order: on a terminal it asks, otherwise --yes says so (a script
// that ran it bare is refused with nothing forgotten); `sandbox receivers list` shows what
// `receivers bind` bound, until a reset.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {terminal} from '../helpers/pty.js'

const ENTER = '\r'
let c: Cli
beforeAll(() => {
  c = cli()
})
afterAll(async () => {
  await c.cleanup()
})

const exists = async (bizOrderNo: string) => (await c.run(['query', 'pay', '--biz-order-no', bizOrderNo])).code
const order = async (bizOrderNo: string) => expect((await c.run(['pay', 'create', '--title', 'T', '--amount', '100', '--biz-order-no', bizOrderNo])).code).toBe(0)

describe('sandbox receivers list', () => {
  it('lists the receivers bound, tab-separated when piped, all of them with --json', async () => {
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', '1900000109', '--name', 'Shop Ltd'])).code).toBe(0)
    expect((await c.run(['sandbox', 'receivers', 'bind', 'PERSONAL_OPENID', 'oUpF8u'])).code).toBe(0)
    const piped = await c.run(['sandbox', 'receivers', 'list'])
    expect(piped.code).toBe(0)
    expect(piped.stdout).toMatch(/^MERCHANT_ID\t1900000109\tShop Ltd\t\S.*$/m)
    expect(piped.stdout).toMatch(/^PERSONAL_OPENID\toUpF8u\t\t\S.*$/m)
    const json = await c.json(['sandbox', 'receivers', 'list'])
    expect(json.body.data).toEqual(expect.arrayContaining([
      expect.objectContaining({receiverType: 'MERCHANT_ID', receiverAccount: '1900000109', receiverName: 'Shop Ltd', mchNo: 'M1000000001'}),
      expect.objectContaining({receiverType: 'PERSONAL_OPENID', receiverAccount: 'oUpF8u', mchNo: 'M1000000001'}),
    ]))
  })
})

describe('sandbox reset', () => {
  it('without a terminal needs --yes: refused bare (exit 2), nothing forgotten', async () => {
    await order('RESET-1')
    const bare = await c.run(['sandbox', 'reset'])
    expect(bare.code).toBe(2)
    expect(bare.stderr).toMatch(/^Error: sandbox reset forgets every order, refund, split, transfer and callback of the sandbox in \S+: pass --yes to confirm$/m)
    expect(await exists('RESET-1')).toBe(0)
    const json = await c.json(['sandbox', 'reset'])
    expect(json.body).toMatchObject({ok: false, error: {kind: 'usage', exitCode: 2}})
    expect(await exists('RESET-1')).toBe(0)
  })

  it('on a terminal asks, no by default: "n" keeps everything', async () => {
    await order('RESET-2')
    const t = terminal(['sandbox', 'reset'], {env: c.env, columns: 400})
    await t.waitFor(/Forget every order, refund, split, transfer and callback of the sandbox in \S+\?/)
    t.type(`n${ENTER}`)
    expect(await t.exited).toBe(2)
    expect(t.output()).toContain('Error: not confirmed; nothing was reset')
    expect(await exists('RESET-2')).toBe(0)
  })

  it('on a terminal "y" resets: the orders and bound receivers are gone, the sandbox starts empty', async () => {
    await order('RESET-3')
    expect((await c.run(['sandbox', 'receivers', 'bind', 'MERCHANT_ID', '1900000110'])).code).toBe(0)
    const t = terminal(['sandbox', 'reset'], {env: c.env, columns: 400})
    await t.waitFor(/Forget every order/)
    t.type(`y${ENTER}`)
    expect(await t.exited).toBe(0)
    expect(t.output()).toContain('the local sandbox is reset; it starts empty on next use')
    expect(await exists('RESET-3')).toBe(1)
    expect((await c.json(['sandbox', 'receivers', 'list'])).body.data).toEqual([])
  })

  it('--yes resets without asking', async () => {
    await order('RESET-4')
    const reset = await c.json(['sandbox', 'reset', '--yes'])
    expect(reset.code).toBe(0)
    expect(reset.body.data).toEqual({reset: true})
    expect(await exists('RESET-4')).toBe(1)
  })
})
