// The default merchant's V1 MD5 key: created on first start in the keys folder (0600), like its
// RSA keys. The file holds the key's characters alone, with no trailing newline, so a client
// that reads the file whole signs with the right key (a newline after the key is the commonest
// V1 signature failure).
import {randomBytes} from 'node:crypto'
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export function ensureMd5Key(dir: string, name: string): {file: string; md5Key: string} {
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const file = join(dir, `${name}-md5.key`)
  if (!existsSync(file)) writeFileSync(file, randomBytes(16).toString('hex'), {mode: 0o600})
  const text = readFileSync(file, 'utf8')
  const md5Key = text.trim()
  // files written before the key was kept without a newline lose it: same key, no trap
  if (text !== md5Key) writeFileSync(file, md5Key, {mode: 0o600})
  chmodSync(file, 0o600)
  return {file, md5Key}
}
