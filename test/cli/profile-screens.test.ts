// Profiles at a terminal: `profile add` asked question by question through a real
// pseudo-terminal, each answer checked at its prompt; `profile show` and `mch logout`.
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {terminal} from '../helpers/pty.js'

let c: Cli
let keys: {privateKeyFile: string; publicKeyFile: string; fingerprint: string}
beforeAll(async () => {
  c = cli()
  // key files under ~/keys of the private HOME, to be answered as ~/keys/...
  mkdirSync(join(c.env.HOME!, 'keys'))
  keys = (await c.json(['keys', 'generate', '--out-dir', join(c.env.HOME!, 'keys'), '--name', 'shop'])).body.data
})
afterAll(async () => {
  await c.cleanup()
})

// Enter as a terminal sends it.
const ENTER = '\r'

describe('interactive profile add', () => {
  it('expands ~ and asks again, at once, for a key file that does not exist', async () => {
    const t = terminal(['profile', 'add', 'shop'], {env: c.env, columns: 100})
    await t.waitFor(/Environment/)
    t.type(ENTER) // sandbox, the first choice
    await t.waitFor(/Platform address/)
    t.type(`not-an-address${ENTER}`)
    await t.waitFor(/baseUrl must be an http\(s\) address/)
    t.type('\u0015') // clear the line, as a person would, and answer again
    t.type(`https://sandbox.pay.example.com${ENTER}`)
    await t.waitFor(/Merchant number/)
    t.type(`M300${ENTER}`)
    await t.waitFor(/Application id/)
    t.type(ENTER)
    await t.waitFor(/Merchant private key file/)
    t.type(`~/keys/missing.pem${ENTER}`)
    await t.waitFor(/privateKeyFile: cannot read .*keys\/missing\.pem: no such file/)
    // still at the same question: nothing was written yet
    expect(t.output()).not.toMatch(/Platform public key file/)
    t.type('\u0015')
    t.type(`~/keys/${keys.privateKeyFile.split('/').pop()}${ENTER}`)
    await t.waitFor(/Platform public key file/)
    t.type(`~/keys/${keys.publicKeyFile.split('/').pop()}${ENTER}`)
    // optional: the channel merchant number transfers sign
    await t.waitFor(/Channel merchant number \(channelMchNo, for transfers; blank: none\)/)
    t.type(`CM300${ENTER}`)
    expect(await t.exited).toBe(0)
    expect(t.output()).toContain('added profile shop')
    const shown = await c.json(['profile', 'show', 'shop'])
    expect(shown.body.data).toMatchObject({name: 'shop', mchNo: 'M300', channelMchNo: 'CM300', privateKeyFile: keys.privateKeyFile, platformPublicKeyFile: keys.publicKeyFile, 'private key': keys.fingerprint})
  })
})

describe('profile show', () => {
  it('shows mchNo, appId, key files and fingerprints, never keys, by name or --profile', async () => {
    const added = await c.run(['profile', 'add', 'flagged', '--base-url', 'https://pay.example.com', '--mch-no', 'M400', '--app-id', 'A400', '--private-key-file', keys.privateKeyFile, '--platform-public-key-file', keys.publicKeyFile])
    expect(added.code, added.stderr).toBe(0)
    const byFlag = await c.run(['profile', 'show', '--profile', 'flagged'])
    expect(byFlag.code).toBe(0)
    expect(byFlag.stdout).toMatch(/^name\tflagged$/m)
    expect(byFlag.stdout).toMatch(/^mchNo\tM400$/m)
    expect(byFlag.stdout).toMatch(/^appId\tA400$/m)
    expect(byFlag.stdout).toContain(`privateKeyFile\t${keys.privateKeyFile}`)
    expect(byFlag.stdout).toContain(`private key\t${keys.fingerprint}`)
    expect(byFlag.stdout).toContain(`platform key\t${keys.fingerprint}`)
    expect(byFlag.stdout).not.toMatch(/BEGIN|MII/)
    expect((await c.json(['profile', 'show', 'flagged'])).body.data).toEqual((await c.json(['profile', 'show', '--profile', 'flagged'])).body.data)
    const missing = await c.run(['profile', 'show', '--profile', 'ghost'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no profile named "ghost"')
  })

  it('describes the local profile from the running sandbox: its merchant and key fingerprints, no PEM', async () => {
    await c.json(['sandbox', 'start'])
    const status = await c.json(['sandbox', 'status'])
    const shown = await c.json(['profile', 'show', 'local'])
    expect(shown.body.data).toMatchObject({name: 'local', environment: 'local', baseUrl: status.body.data.url, mchNo: status.body.data.mchNo, appId: status.body.data.appId})
    expect(shown.body.data['private key']).toMatch(/^SHA256:/)
    expect(shown.body.data['platform key']).toMatch(/^SHA256:/)
    expect(JSON.stringify(shown.body)).not.toContain('BEGIN')
  })
})

describe('mch logout', () => {
  it('removes the session token, so the next lookup asks to log in', async () => {
    await c.json(['sandbox', 'start'])
    expect((await c.run(['sandbox', 'users', 'add', 'ops', '--password-stdin'], {input: 'pa55word\n'})).code).toBe(0)
    expect((await c.run(['mch', 'login', '--account', 'ops', '--password-stdin', '--profile', 'local'], {input: 'pa55word\n'})).code).toBe(0)
    expect((await c.run(['refunds', 'list', '--profile', 'local'])).code).toBe(0)
    const out = await c.run(['mch', 'logout', '--profile', 'local'])
    expect(out.code).toBe(0)
    expect(out.stderr).toContain('logged out: the session token is removed from profile local')
    expect((await c.json(['profile', 'show', 'local'])).body.data.token).toBeUndefined()
    const after = await c.run(['refunds', 'list', '--profile', 'local'])
    expect(after.code).toBe(1)
    expect(after.stderr).toContain('not logged in to the management API')
    const again = await c.json(['mch', 'logout', '--profile', 'local'])
    expect(again.body).toEqual({ok: true, data: {profile: 'local', loggedOut: false}, warnings: []})
  })
})
