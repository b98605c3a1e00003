// Allocations: receivers from TYPE:ACCOUNT:AMOUNT[:NAME] specs or a file (JSON array or CSV
// with a header), amounts in yuan converted exactly, sent as yuan (the spec) or as cents for
// platforms that take cents (profile switch).
import {readFileSync, statSync} from 'node:fs'
import {call, connectChecked, type CallResult, type ClientConfig} from '../client/pipeline.js'
import {controlCall} from '../local-sandbox/control.js'
import {readRuntime} from '../local-sandbox/liveness.js'
import {locateSandbox, sandboxesElsewhere} from '../local-sandbox/location.js'
import type {SandboxRuntime} from '../protocol/local-sandbox.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
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

type AllocAmountUnit = 'yuan' | 'cents'

/** A command's client and profile; `profile` is read after the call connects (the local profile is resolved again once its sandbox runs). */
interface RunContext {
  client: ClientConfig
  profile: ResolvedProfile
}

/** Where a local sandbox is looked for: the CLI's data folder and the environment (UNIPAY_SANDBOX_DIR). */
interface SandboxWhere {
  home: string
  env: NodeJS.ProcessEnv
}

/** The unit receiver amounts go in, and why it may be wrong. */
interface AllocUnit {
  unit: AllocAmountUnit
  /** A profile whose unit is not the one the local sandbox reads for its merchant. */
  warning?: string
}

/**
 * The unit of receiver amounts: the built-in local profile takes its sandbox merchant's (`sandbox
 * merchants set --alloc-amount-unit`), as it takes the address and keys; another profile keeps
 * its own (default yuan, the spec's), and when it talks to a local sandbox whose merchant reads
 * the other unit, a warning says so: 2.00 yuan sent to a cents merchant is 2 cents.
 */
async function allocAmountUnit(profile: ResolvedProfile, {home, env}: SandboxWhere): Promise<AllocUnit> {
  const own = profile.settings.allocAmountUnit ?? 'yuan'
  const {baseUrl, mchNo} = profile.settings
  const sandbox = profile.environment === 'local' ? profile.sandbox : baseUrl && profile.environment !== 'production' ? await sandboxAt(baseUrl, home, env) : undefined
  if (!sandbox || !mchNo) return {unit: own}
  let merchants: {mchNo: string; allocAmountUnit: AllocAmountUnit}[]
  try {
    merchants = await controlCall(sandbox, 'GET', 'merchants')
  } catch {
    return {unit: own} // the call itself will say what is wrong with the sandbox
  }
  const theirs = merchants.find((m) => m.mchNo === mchNo)?.allocAmountUnit
  if (!theirs || theirs === own) return {unit: own}
  if (profile.environment === 'local') return {unit: theirs}
  return {
    unit: own,
    warning: `profile ${profile.name} sends allocation amounts in ${own}, but the local sandbox at ${sandbox.url} reads merchant ${mchNo}'s in ${theirs}: \`unipay profile set allocAmountUnit ${theirs} --profile ${profile.name}\` (or \`unipay sandbox merchants set ${mchNo} --alloc-amount-unit ${own}\`)`,
  }
}

/** The running local sandbox (the one a `sandbox` command would reach, or one started for another folder) at `baseUrl`, if any. */
async function sandboxAt(baseUrl: string, home: string, env: NodeJS.ProcessEnv): Promise<SandboxRuntime | undefined> {
  let origin: string
  try {
    origin = new URL(baseUrl).origin
  } catch {
    return undefined
  }
  const location = locateSandbox(home, undefined, env)
  const candidates = [readRuntime(location.dataDir), ...(location.dataDir === home ? await sandboxesElsewhere(home) : [])]
  return candidates.find((runtime) => runtime && new URL(runtime.url).origin === origin)
}

/**
 * A split: checked first (so bad input starts nothing), then the unit known (for the local
 * profile, from its sandbox), then sent with the receivers' amounts in that unit.
 */
export async function createAlloc(context: RunContext, where: SandboxWhere, input: AllocInput, options: CallOptions = {}): Promise<{result: CallResult<AllocResult>; unit: AllocUnit}> {
  await connectChecked(context.client, endpoints.alloc, allocFields(input, 'yuan'))
  const unit = await allocAmountUnit(context.profile, where)
  const bizAllocNo = input.bizAllocNo ?? generateBusinessNo('AL')
  const result = await outcomeUnknownHint(call<AllocResult>(context.client, endpoints.alloc, {...allocFields(input, unit.unit), bizAllocNo}, options), 'bizAllocNo', bizAllocNo, 'query alloc --biz-alloc-no')
  return {result, unit}
}

/** The fields of a split, receiver amounts (yuan as typed) converted exactly into the unit. */
function allocFields(input: AllocInput, unit: AllocAmountUnit): Record<string, unknown> {
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
  return {...input, receivers}
}

/** An allocation, and the unit its amounts are in (asked once the call has reached the platform). */
export async function queryAlloc(context: RunContext, where: SandboxWhere, ref: {allocNo?: string; bizAllocNo?: string}, options: CallOptions = {}): Promise<{result: CallResult<AllocOrderAnswer>; unit: AllocUnit}> {
  const result = await call<AllocOrderAnswer>(context.client, endpoints.queryAlloc, ref, options)
  return {result, unit: await allocAmountUnit(context.profile, where)}
}

export async function syncAlloc(client: ClientConfig, ref: {allocNo?: string; bizAllocNo?: string}, options: CallOptions = {}): Promise<CallResult<SyncAnswer>> {
  return call(client, endpoints.syncAlloc, ref, options)
}
