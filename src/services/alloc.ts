// Allocations: receivers from TYPE:ACCOUNT:AMOUNT[:NAME] specs or a file (JSON array or CSV
// with a header), amounts in yuan converted exactly, sent as yuan (the spec) or as cents for
// platforms that take cents (profile switch).
import {readFileSync, statSync} from 'node:fs'
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {AllocOrderAnswer, AllocResult, SyncAnswer} from '../protocol/answers.js'
import {readProblem, UsageError} from '../errors.js'
import {endpoints} from '../protocol/endpoints.js'
import {isLosslessNumber, JsonRepeatedKeyError, parseJson, toPlain, type JsonValue} from '../protocol/json.js'
import {MoneyFormatError, yuanToCents} from '../protocol/money.js'
import {readRows, unknownColumn, type RowProblem} from './files/reader.js'
import {generateBusinessNo, outcomeUnknownHint, type CallOptions} from './call.js'

interface ReceiverInput {
  receiverType: string
  receiverAccount: string
  /** Yuan, as typed: "6", "6.00", "0.35". */
  amount: string
  receiverName?: string
}

export function parseReceiverSpec(spec: string, index: number): ReceiverInput {
  const [receiverType, receiverAccount, amount, ...name] = spec.split(':')
  if (!receiverType || !receiverAccount || !amount) {
    throw new UsageError('invalid input', [{field: 'receiver', message: `#${index + 1} "${spec}": expected TYPE:ACCOUNT:AMOUNT[:NAME] (amount in yuan)`}])
  }
  return {receiverType, receiverAccount, amount, receiverName: name.length ? name.join(':') : undefined}
}

/** Columns (or keys) of a receivers file. */
const RECEIVER_COLUMNS = ['receiverType', 'receiverAccount', 'amount', 'receiverName']
/** A receivers file is a short list: read whole, and bounded as --data is. */
const MAX_RECEIVERS_FILE_BYTES = 10 * 1024 * 1024

/**
 * Receivers from a JSON array or a CSV with a header, read as strictly as --data (a key repeated
 * with another value, a column named twice, a column no receiver has: refused, by line).
 */
export async function readReceiversFile(file: string): Promise<ReceiverInput[]> {
  let text: string
  try {
    if (statSync(file).size > MAX_RECEIVERS_FILE_BYTES) throw new UsageError(`--receivers-file: ${file} is over ${MAX_RECEIVERS_FILE_BYTES / 1024 / 1024} MB, the most unipay reads`)
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`--receivers-file: cannot read ${file}: ${readProblem(error)}`)
  }
  const problems: RowProblem[] = []
  const records: {line: number; record: Record<string, unknown>}[] = []
  if (text.trimStart().startsWith('[')) {
    let list: JsonValue
    try {
      list = parseJson(text.replace(/^\uFEFF/, ''))
    } catch (error) {
      const line = error instanceof JsonRepeatedKeyError ? lineAt(text, error.position) : undefined
      if (line !== undefined) throw new UsageError(`--receivers-file: ${file}: line ${line}: ${(error as JsonRepeatedKeyError).key}: the key is repeated with another value: which one is meant is not clear`)
      throw new UsageError(`--receivers-file: ${file} is neither a JSON array nor a CSV with a header: ${(error as Error).message}`)
    }
    if (!Array.isArray(list)) throw new UsageError(`--receivers-file: ${file} must hold a list of receivers`)
    list.forEach((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item) || isLosslessNumber(item)) problems.push({line: 0, field: `receivers[${i}]`, message: 'not a JSON object'})
      else records.push({line: 0, record: toPlain(item) as Record<string, unknown>})
    })
  } else {
    for await (const batch of readRows(file)) for (const row of batch) {
      if ('record' in row) records.push(row)
      else problems.push(row)
    }
    if (problems.some((p) => p.message.startsWith('not valid CSV'))) {
      throw new UsageError(`--receivers-file: ${file} is neither a JSON array nor a CSV with a header: ${problems.map(shown).join('; ')}`)
    }
  }
  const unknown = new Set<string>()
  for (const {record} of records) for (const key of Object.keys(record)) if (!RECEIVER_COLUMNS.includes(key)) unknown.add(key)
  for (const key of unknown) problems.push({line: 0, field: key, message: unknownColumn(key, RECEIVER_COLUMNS)})
  if (problems.length > 0) throw new UsageError(`--receivers-file: ${file}: ${problems.map(shown).join('; ')}`)
  return records.map(({record: r}) => ({
    receiverType: String(r.receiverType ?? ''),
    receiverAccount: String(r.receiverAccount ?? ''),
    amount: String(r.amount ?? ''),
    receiverName: r.receiverName ? String(r.receiverName) : undefined,
  }))
}

const shown = (p: RowProblem) => `${p.line ? `line ${p.line}: ` : ''}${p.field ? `${p.field}: ` : ''}${p.message}`

/** The line (from 1) of a position in the text. */
function lineAt(text: string, position: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < position; at = text.indexOf('\n', at + 1)) line++
  return line
}

interface AllocInput {
  bizAllocNo?: string
  tradeNo?: string
  bizOrderNo?: string
  title?: string
  description?: string
  attach?: string
  notifyUrl?: string
  receivers: ReceiverInput[]
}

export async function createAlloc(client: ClientConfig, input: AllocInput, unit: 'yuan' | 'cents', options: CallOptions = {}): Promise<CallResult<AllocResult>> {
  const receivers = input.receivers.map((r, i) => {
    let cents: number
    try {
      cents = yuanToCents(r.amount)
    } catch (error) {
      throw new UsageError('invalid input', [{field: `receivers[${i}].amount`, message: (error as MoneyFormatError).message}])
    }
    if (cents < 1) throw new UsageError('invalid input', [{field: `receivers[${i}].amount`, message: 'must be at least 0.01 (yuan)'}])
    // cents/100 prints as the exact two-decimal yuan value (shortest round-trip form)
    return {...r, amount: unit === 'cents' ? cents : cents / 100}
  })
  const bizAllocNo = input.bizAllocNo ?? generateBusinessNo('AL')
  return outcomeUnknownHint(call<AllocResult>(client, endpoints.alloc, {...input, receivers, bizAllocNo}, options), 'bizAllocNo', bizAllocNo, 'query alloc --biz-alloc-no')
}

export async function queryAlloc(client: ClientConfig, ref: {allocNo?: string; bizAllocNo?: string}, options: CallOptions = {}): Promise<CallResult<AllocOrderAnswer>> {
  return call(client, endpoints.queryAlloc, ref, options)
}

export async function syncAlloc(client: ClientConfig, ref: {allocNo?: string; bizAllocNo?: string}, options: CallOptions = {}): Promise<CallResult<SyncAnswer>> {
  return call(client, endpoints.syncAlloc, ref, options)
}
