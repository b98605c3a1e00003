// Profiles hold tokens and point at private keys: the config file is 0600 in a 0700 folder,
// whoever made the folder first and whatever mode an older version left.
import {chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {ProfileStore} from '../../src/profiles/store.js'
import type {Profile} from '../../src/profiles/model.js'

const mode = (path: string) => statSync(path).mode & 0o777
const PROFILE: Profile = {environment: 'sandbox', baseUrl: 'http://127.0.0.1:9', mchNo: 'M1'}

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'unipay-store-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

describe('the profile store on disk', () => {
  it('makes its folder, and the missing folders above it, owner-only, and the file 0600', async () => {
    const configDir = join(dir, 'config', 'unipay')
    await new ProfileStore(configDir).save('staging', PROFILE)
    expect(mode(join(dir, 'config'))).toBe(0o700)
    expect(mode(configDir)).toBe(0o700)
    expect(mode(join(configDir, 'config.json'))).toBe(0o600)
    expect(await new ProfileStore(configDir).get('staging')).toEqual(PROFILE)
  })

  it('tightens a folder and a file that an older version left readable by others', async () => {
    const configDir = join(dir, 'unipay')
    mkdirSync(configDir, {mode: 0o755})
    chmodSync(configDir, 0o755)
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({profiles: {staging: PROFILE}}), {mode: 0o644})
    chmodSync(join(configDir, 'config.json'), 0o644)
    await new ProfileStore(configDir).use('staging')
    expect(mode(configDir)).toBe(0o700)
    expect(mode(join(configDir, 'config.json'))).toBe(0o600)
    expect(await new ProfileStore(configDir).activeName()).toBe('staging')
  })
})
