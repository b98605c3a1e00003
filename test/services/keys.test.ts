import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {UsageError} from '../../src/errors.js'
import {loadPrivateKey} from '../../src/protocol/keys.js'
import {writeKeyPair} from '../../src/services/keys.js'

const dir = mkdtempSync(join(tmpdir(), 'unipay-keys-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('writeKeyPair', () => {
  it('makes the missing folders, writes an owner-only private key and refuses to overwrite without force', () => {
    const written = writeKeyPair(join(dir, 'a', 'b'), 'staging')
    expect(written.privateKeyFile).toBe(join(dir, 'a', 'b', 'staging-private.pem'))
    expect(statSync(written.privateKeyFile).mode & 0o777).toBe(0o600)
    expect(loadPrivateKey(readFileSync(written.privateKeyFile, 'utf8')).asymmetricKeyDetails?.modulusLength).toBe(2048)
    expect(written.fingerprint).toMatch(/^SHA256:/)
    expect(() => writeKeyPair(join(dir, 'a', 'b'), 'staging')).toThrow(/staging-private\.pem or its public key exists; pass --force to overwrite/)
    expect(writeKeyPair(join(dir, 'a', 'b'), 'staging', true).fingerprint).not.toBe(written.fingerprint)
  })

  it('says why a folder cannot be used, as bad input', () => {
    writeFileSync(join(dir, 'plain-file'), 'x')
    const attempt = () => writeKeyPair(join(dir, 'plain-file', 'keys'), 'merchant')
    expect(attempt).toThrow(UsageError)
    expect(attempt).toThrow(/cannot write the key files there: a file, not a folder, is in the way/)
    expect(() => writeKeyPair(dir, '../up')).toThrow('--name: use letters, digits, _ . -')
  })
})
