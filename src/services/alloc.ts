// Allocations: receivers from TYPE:ACCOUNT:AMOUNT[:NAME] specs or a file (JSON array or CSV
// with a header), amounts in yuan converted exactly, sent as yuan (the spec) or as cents for
// platforms that take cents (profile switch).
import {readFileSync} from 'node:fs'
import {call, type CallResult, type ClientConfig} from '../client/pipeline.js'
import type {AllocOrderAnswer, AllocResult, SyncAnswer} from '../protocol/answers.js'
import {readProblem, UsageError} from '../errors.js'
import {endpoints} from '../protocol/endpoints.js'
import {MoneyFormatError, yuanToCents} from '../protocol/money.js'
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

export async function readReceiversFile(file: string): Promise<ReceiverInput[]> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`--receivers-file: cannot read ${file}: ${readProblem(error)}`)
  }
  let records: Record<string, unknown>[]
  try {
    if (text.trimStart().startsWith('[')) records = JSON.parse(text)
    else {
      const {parse} = await import('csv-parse/sync')
      records = parse(text, {columns: true, skip_empty_lines: true, trim: true})
    }
  } catch (error) {
    throw new UsageError(`--receivers-file: ${file} is neither a JSON array nor a CSV with a header: ${(error as Error).message}`)
  }
  if (!Array.isArray(records)) throw new UsageError(`--receivers-file: ${file} must hold a list of receivers`)
  return records.map((r) => ({
    receiverType: String(r.receiverType ?? ''),
    receiverAccount: String(r.receiverAccount ?? ''),
    amount: String(r.amount ?? ''),
    receiverName: r.receiverName ? String(r.receiverName) : undefined,
  }))
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
