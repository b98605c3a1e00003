// Reading user input at the edge: --data bodies (@file, - for stdin, or inline JSON), key=value
// fields and amounts (cents, or yuan converted exactly).
import {closeSync, openSync, readSync} from 'node:fs'
import {ConfigError, readProblem, UsageError} from '../errors.js'
import type {CallEndpoint} from '../protocol/endpoints.js'
import {JsonSyntaxError, parseJsonObject, PROTO_KEY_REFUSED, type JsonObject} from '../protocol/json.js'
import {MoneyFormatError, yuanToCentsWithin} from '../protocol/money.js'

/** The most read from a file or standard input: the answer cap (client/http.ts), as input is bounded like answers. */
const MAX_INPUT_BYTES = 10 * 1024 * 1024

class TooLarge extends Error {}

/** One read; a non-blocking pipe with nothing in it yet (EAGAIN) is waited on, 5 ms at a time. */
function readSome(fd: number, buffer: Buffer): number {
  for (;;) {
    try {
      return readSync(fd, buffer)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
    }
  }
}

/** Reads to the end, or refuses past the cap (`@/dev/zero` or an endless pipe ends at once, not at 7 GB). */
function readBounded(fd: number): string {
  const chunks: Buffer[] = []
  let size = 0
  const buffer = Buffer.alloc(1024 * 1024)
  for (let n = readSome(fd, buffer); n > 0; n = readSome(fd, buffer)) {
    size += n
    if (size > MAX_INPUT_BYTES) throw new TooLarge()
    chunks.push(Buffer.from(buffer.subarray(0, n)))
  }
  return Buffer.concat(chunks, size).toString('utf8')
}

const tooLarge = (flag: string, what: string) => new UsageError(`${flag}: ${what} is over ${MAX_INPUT_BYTES / 1024 / 1024} MB, the most unipay reads`)

export function readText(value: string, flag: string): string {
  if (value === '-') {
    try {
      return readBounded(0)
    } catch (error) {
      if (error instanceof TooLarge) throw tooLarge(flag, 'standard input')
      throw new UsageError(`${flag}: cannot read standard input: ${(error as Error).message}`)
    }
  }
  if (value.startsWith('@')) {
    const file = value.slice(1)
    let fd: number | undefined
    try {
      fd = openSync(file, 'r')
      return readBounded(fd)
    } catch (error) {
      if (error instanceof TooLarge) throw tooLarge(flag, file)
      throw new UsageError(`${flag}: cannot read ${file}: ${readProblem(error)}`)
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }
  return value
}

/** A JSON object from --data, numbers kept exactly as written. */
export function readJsonData(value: string, flag = '--data'): JsonObject {
  const text = readText(value, flag)
  try {
    return parseJsonObject(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new UsageError(`${flag}: not a JSON object: ${(error as JsonSyntaxError).message}`)
  }
}

/** Common fields the pipeline fills in itself: a value for them in --data would be replaced. */
const FILLED_BY_CLI = new Set(['mchNo', 'appId', 'reqId', 'nonceStr', 'reqTime', 'sign'])

/**
 * The --data object of a command that wraps an endpoint: every key must be one of the
 * endpoint's fields, since anything else would be signed and sent only to be refused (20052).
 */
export function readEndpointData(value: string | undefined, endpoint: Pick<CallEndpoint, 'path' | 'fieldNames'>): JsonObject {
  if (value === undefined) return {}
  const data = readJsonData(value)
  const known = new Set(endpoint.fieldNames)
  const unknown = Object.keys(data).filter((key) => !known.has(key))
  const filled = Object.keys(data).filter((key) => FILLED_BY_CLI.has(key))
  const problems = [
    ...unknown.map((key) => `"${key}" is not a field of POST ${endpoint.path}`),
    ...filled.map((key) => `"${key}" is set by the CLI (from the profile, or fresh for each request)`),
  ]
  if (problems.length === 0) return data
  const error = new UsageError(`--data: ${problems.join('; ')}`)
  error.hint = `to send a body as you wrote it, use: unipay api ${endpoint.path} --data ... (add --unchecked, on a sandbox profile, to send even what the spec's rules refuse)`
  throw error
}

/**
 * `api`'s fields: the --data body, then -f pairs (strings), then -F pairs (numbers, true/false and
 * null typed, else strings); later ones win.
 */
export function fieldPairs(data: Record<string, unknown>, strings: string[] = [], typedPairs: string[] = []): Record<string, unknown> {
  const fields = {...data}
  for (const pair of strings) {
    const [key, value] = splitPair(pair, '-f')
    fields[key] = value
  }
  for (const pair of typedPairs) {
    const [key, value] = splitPair(pair, '-F')
    fields[key] = typed(value)
  }
  return fields
}

function splitPair(pair: string, flag: string): [string, string] {
  const at = pair.indexOf('=')
  if (at <= 0) throw new UsageError(`${flag} ${pair}: expected key=value`)
  if (pair.slice(0, at) === '__proto__') throw new UsageError(`${flag} ${pair}: ${PROTO_KEY_REFUSED}`)
  return [pair.slice(0, at), pair.slice(at + 1)]
}

function typed(value: string): unknown {
  if (value === 'true') return true
  if (value === 'false') return false
  if (value === 'null') return null
  if (/^-?\d+(\.\d+)?$/.test(value) && Number.isSafeInteger(Math.trunc(Number(value)))) return Number(value)
  return value
}

/** --data's fields with the flags actually given on top: a flag left out never erases a field. */
export function withFlags(data: JsonObject, flags: Record<string, unknown>): Record<string, unknown> {
  return {...data, ...setFields(flags)}
}

/** What an amount may be: required or not, its limits in cents, and the flags that give it. */
interface AmountRule {
  required?: boolean
  minCents?: number
  maxCents: number
  flags?: {cents: string; yuan: string}
}

/**
 * Cents from --amount (whole cents) or --yuan (at most two decimals); exactly one of them. A
 * --yuan out of bounds is refused naming --yuan with the limits in yuan (--amount's are the
 * endpoint's rules, in cents).
 */
export function amountInCents(given: {amount?: string; yuan?: string}, rule: AmountRule): number | undefined {
  const {required = true, minCents = 1, maxCents, flags = {cents: 'amount', yuan: 'yuan'}} = rule
  if (given.amount !== undefined && given.yuan !== undefined) {
    throw new UsageError('invalid input', [{field: flags.cents, message: `give --${flags.cents} (cents) or --${flags.yuan}, not both`}])
  }
  if (given.yuan !== undefined) {
    try {
      return yuanToCentsWithin(given.yuan, minCents, maxCents)
    } catch (error) {
      throw new UsageError('invalid input', [{field: flags.yuan, message: (error as MoneyFormatError).message}])
    }
  }
  if (given.amount === undefined) {
    if (!required) return undefined
    throw new UsageError('invalid input', [{field: flags.cents, message: `is required (in cents; or give --${flags.yuan})`}])
  }
  if (!/^\d+$/.test(given.amount)) {
    throw new UsageError('invalid input', [{field: flags.cents, message: `"${given.amount}" is not a whole number of cents (use --${flags.yuan} for yuan)`}])
  }
  return Number(given.amount)
}

/** The fields a user set: flags left out (undefined) and switches left off (false) are not sent. */
function setFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== false))
}

/** A password from standard input (--password-stdin): the line break `echo` or a here-string adds is not part of it. */
export function readPasswordStdin(): string {
  return readText('-', '--password-stdin').replace(/\r?\n$/, '')
}

/** The MD5 key in --md5-key-file, without surrounding white space; an empty file is bad input, not "no key". */
export function readMd5KeyFile(file: string): string {
  const key = readText(`@${file}`, '--md5-key-file').trim()
  if (!key) throw new UsageError(`--md5-key-file: ${file} is empty`)
  return key
}

/** A key from a file named by a flag; a file that holds no key of that kind is bad input. */
export async function readKeyFile(file: string, kind: 'private' | 'public', flag: string) {
  const {KeyFormatError, loadPrivateKey, loadPublicKey} = await import('../protocol/keys.js')
  const text = readText(`@${file}`, flag)
  try {
    return kind === 'private' ? loadPrivateKey(text) : loadPublicKey(text)
  } catch (error) {
    if (error instanceof KeyFormatError) throw new ConfigError(`${file}: ${error.message}`)
    throw error
  }
}
