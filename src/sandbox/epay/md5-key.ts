// The merchants' V1 MD5 keys: one file per merchant in the keys folder (0600), made with a new
// key when the merchant is registered (the default merchant's on first start, like its RSA
// keys), and replaceable (`sandbox merchants set --md5-key-file`). A file holds the key's
// characters alone, with no trailing newline, so a client that reads the file whole signs with
// the right key (a newline after the key is the commonest V1 signature failure).
import {randomBytes} from 'node:crypto'
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Md5KeyForm} from '../../protocol/epay.js'
import type {EpaySecret} from './shared.js'

/** A key given to the sandbox: printable ASCII without spaces, which every V1 signer appends as is. */
export const MD5_KEY_PATTERN = /^[\x21-\x7e]{1,128}$/

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

/** The merchants' MD5 keys, by merchant number. */
export interface Md5Keys {
  /** The merchant's key; undefined when it has none (V1 is then not enabled for it). */
  get(mchNo: string): EpaySecret | undefined
  /** The merchant's key file, made with a new key when it has none. */
  issue(mchNo: string): string
  /** Replaces the merchant's key; its file. */
  set(mchNo: string, md5Key: string): string
}

/**
 * The keys in `dir`: the default merchant's in `merchant-md5.key` (where it always was), every
 * other one's in `merchant-{mchNo}-md5.key` (a merchant number is letters, digits, _ and -).
 */
export function md5KeyFiles(dir: string, defaultMerchant: {mchNo: string; md5KeyForm?: Md5KeyForm}): Md5Keys {
  const keys = new Map<string, string>()
  const nameOf = (mchNo: string) => (mchNo === defaultMerchant.mchNo ? 'merchant' : `merchant-${mchNo}`)
  const issue = (mchNo: string) => {
    const {file, md5Key} = ensureMd5Key(dir, nameOf(mchNo))
    keys.set(mchNo, md5Key)
    return file
  }
  return {
    get(mchNo) {
      if (!keys.has(mchNo) && existsSync(join(dir, `${nameOf(mchNo)}-md5.key`))) issue(mchNo)
      const md5Key = keys.get(mchNo)
      if (md5Key === undefined) return undefined
      return mchNo === defaultMerchant.mchNo && defaultMerchant.md5KeyForm ? {md5Key, md5KeyForm: defaultMerchant.md5KeyForm} : {md5Key}
    },
    issue,
    set(mchNo, md5Key) {
      mkdirSync(dir, {recursive: true, mode: 0o700})
      const file = join(dir, `${nameOf(mchNo)}-md5.key`)
      writeFileSync(file, md5Key, {mode: 0o600})
      chmodSync(file, 0o600)
      keys.set(mchNo, md5Key)
      return file
    },
  }
}
