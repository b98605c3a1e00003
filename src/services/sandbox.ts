// The `sandbox` command family: each command parses its flags, calls one function here and
// renders what it returns. These find the sandbox the user meant (`--data-dir`, else
// UNIPAY_SANDBOX_DIR, else the CLI's data folder; see local-sandbox/location.ts), start it when
// a command needs it running, and drive it through its control endpoints, which play the payer,
// the payee, the channel and the clock. Nothing here prints: notices go through `notice`.
import {PlatformError, UsageError} from '../errors.js'
import {controlCall, dashboardSignInUrl as signInUrl} from '../local-sandbox/control.js'
import {
  ensureSandbox,
  resetSandbox as wipeSandbox,
  runForeground,
  stopSandbox as stopDaemon,
  type ForegroundSettings,
  type StartSettings,
} from '../local-sandbox/lifecycle.js'
import {readRuntime} from '../local-sandbox/liveness.js'
import {findRunning, requireSandbox, sandboxesElsewhere, type SandboxLocation} from '../local-sandbox/location.js'
import {sandboxCredentials, type SandboxCredentials, type SandboxMerchant} from '../local-sandbox/credentials.js'
import {notADuration, parseDuration} from '../protocol/duration.js'
import type {GatewayOrderResult, NormalPayOrderResult, RefundRecord, TransferOrderResult} from '../protocol/answers.js'
import {TRIGGER_EVENTS, sandboxDir, type BoundReceiver, type FaultRule, type SandboxFault, type SandboxRuntime} from '../protocol/local-sandbox.js'
import type {Notification} from '../protocol/notifications.js'
import type {RequestLogEntry} from '../protocol/sandbox-requests.js'
import {EPAY_TRIGGER_EVENTS, triggerEpayNotification} from './sandbox-trigger.js'

export type {SandboxCredentials}

/** Which sandbox a command uses, and where its notices go. */
export interface SandboxUse {
  location: SandboxLocation
  notice: (message: string) => void
}

/**
 * The sandbox in use, started in the background when it is not running; a folder named by
 * --data-dir or UNIPAY_SANDBOX_DIR must hold one (only `sandbox start` makes a new one there).
 */
async function running({location, notice}: SandboxUse): Promise<SandboxRuntime> {
  requireSandbox(location)
  return (await ensureSandbox(location, {}, notice)).runtime
}

// ---------------------------------------------------------------------------------------------
// The process

/** Starts the sandbox in the background (saying so when another one runs for another folder); `started` false when it ran already. */
export async function startSandbox({location, notice}: SandboxUse, settings: StartSettings): Promise<{url: string; pid: number; started: boolean}> {
  const {runtime, started} = await ensureSandbox(location, settings, notice, {explicit: true})
  return {url: runtime.url, pid: runtime.pid, started}
}

/** Runs the sandbox in this terminal until it stops; resolves with its exit code. */
export function runSandboxInForeground({location, notice}: SandboxUse, settings: ForegroundSettings): Promise<number> {
  return runForeground(location, settings, notice)
}

/** Stops the sandbox; false when it was not running. */
export async function stopSandbox({location}: SandboxUse): Promise<boolean> {
  requireSandbox(location)
  return stopDaemon(location.dataDir)
}

/** Stops the sandbox and wipes its orders and callbacks (keys stay). */
export async function resetSandbox({location}: SandboxUse): Promise<void> {
  requireSandbox(location)
  return wipeSandbox(location.dataDir)
}

export type SandboxStatus =
  | {running: true; url: string; pid: number; startedAt: string; mchNo: string; appId: string; privateKeyFile: string; md5KeyFile?: string; platformPublicKey: string; dataDir: string}
  | {running: false; dataDir: string; runningElsewhere?: string[]}

/** Whether the sandbox runs, and where; when it does not, the sandboxes that run for other folders. */
export async function sandboxStatus({location}: SandboxUse): Promise<SandboxStatus> {
  requireSandbox(location)
  const runtime = readRuntime(location.dataDir)
  const dataDir = sandboxDir(location.dataDir)
  if (!runtime) {
    const others = location.dataDir === location.home ? await sandboxesElsewhere(location.home) : []
    return others.length ? {running: false, dataDir, runningElsewhere: others.map((o) => `${o.dataDir} (pid ${o.pid}, ${o.url})`)} : {running: false, dataDir}
  }
  return {
    running: true,
    url: runtime.url,
    pid: runtime.pid,
    startedAt: runtime.startedAt,
    mchNo: runtime.merchant.mchNo,
    appId: runtime.merchant.appId,
    // where a third-party client finds the merchant's keys (paths only, never the keys)
    privateKeyFile: runtime.merchant.privateKeyFile,
    md5KeyFile: runtime.merchant.md5KeyFile,
    platformPublicKey: runtime.platformPublicKeyPem,
    dataDir,
  }
}

/** What a backend needs to call the sandbox, and each merchant's allocation amount unit. */
export async function credentials(use: SandboxUse): Promise<SandboxCredentials> {
  const runtime = await running(use)
  const merchants = await controlCall<SandboxMerchant[]>(runtime, 'GET', 'merchants')
  return sandboxCredentials(runtime, merchants)
}

/** The dashboard's sign-in address: good once, for a few minutes (it carries a ticket for the control secret). */
export async function dashboardSignInUrl(use: SandboxUse): Promise<string> {
  return signInUrl(await running(use))
}

// ---------------------------------------------------------------------------------------------
// Playing the payer, the payee, the channel and the clock

export type PayerResult = GatewayOrderResult | NormalPayOrderResult

/** The payer pays (or fails) an order: a payment order, or a gateway order as on its page. */
export async function payAsPayer(use: SandboxUse, move: {order: string; outcome: 'success' | 'fail'; wallet?: string; method?: string}): Promise<PayerResult> {
  return controlCall<PayerResult>(await running(use), 'POST', 'pay', move)
}

/** The channel settles a refund (refundNo or bizRefundNo). */
export async function settleRefund(use: SandboxUse, refund: string, outcome: 'success' | 'fail' | 'close'): Promise<RefundRecord> {
  return controlCall<RefundRecord>(await running(use), 'POST', `refunds/${encodeURIComponent(refund)}/settle`, {outcome})
}

/** The payee confirms or rejects a walletA transfer (transferNo or bizTransferNo). */
export async function payeeAnswers(use: SandboxUse, transfer: string, answer: 'confirm' | 'reject'): Promise<TransferOrderResult> {
  return controlCall<TransferOrderResult>(await running(use), 'POST', `transfers/${encodeURIComponent(transfer)}/${answer}`)
}

/** Moves the sandbox clock forward by a duration such as 31m or 1h30m (checked before the sandbox is started). */
export async function advanceClock(use: SandboxUse, duration: string): Promise<{now: string; offsetMs: number}> {
  const advanceMs = parseDuration(duration)
  if (advanceMs === undefined) throw new UsageError(`DURATION: ${notADuration(duration)}`)
  if (advanceMs === 0) throw new UsageError(`DURATION: "${duration}" must be more than 0 (the clock only moves forward)`)
  return controlCall(await running(use), 'POST', 'clock', {advanceMs})
}

// ---------------------------------------------------------------------------------------------
// Faults

/** Arms a fault; one that could never strike (a path no call goes to, a signature fault where no answer is signed) is bad usage, saying why. */
export async function addFault(use: SandboxUse, rule: {fault: SandboxFault; remaining: number; path?: string; latencyMs?: number}): Promise<FaultRule> {
  try {
    return await controlCall<FaultRule>(await running(use), 'POST', 'faults', rule)
  } catch (error) {
    if (error instanceof PlatformError && error.code === 10506) throw new UsageError(`--path: ${error.platformMessage.replace(/^path: /, '')}`)
    throw error
  }
}

export async function listFaults(use: SandboxUse): Promise<FaultRule[]> {
  return controlCall<FaultRule[]>(await running(use), 'GET', 'faults')
}

export async function clearFaults(use: SandboxUse): Promise<{cleared: number}> {
  return controlCall<{cleared: number}>(await running(use), 'DELETE', 'faults')
}

// ---------------------------------------------------------------------------------------------
// Merchants, receivers, balances, users (default merchant: the sandbox's own)

/** Registers a merchant; one of that number already there (the built-in one included) is replaced only when `force`. */
export async function addMerchant(
  use: SandboxUse,
  merchant: {mchNo: string; appId?: string; publicKeyPem: string; force: boolean},
): Promise<{mchNo: string; appId: string; replaced: boolean; url: string; epayV1Md5KeyFile?: string}> {
  const runtime = await running(use)
  try {
    const added = await controlCall<{mchNo: string; appId: string; replaced: boolean; epayV1Md5KeyFile?: string}>(runtime, 'POST', 'merchants', merchant)
    return {...added, url: runtime.url}
  } catch (error) {
    if (error instanceof PlatformError && error.code === 10507) {
      const builtIn = merchant.mchNo === runtime.merchant.mchNo ? ' (this is the built-in merchant: the local profile\'s commands sign as it)' : ''
      throw new UsageError(`${error.message}${builtIn}; --force replaces it`)
    }
    throw error
  }
}

/** A merchant's settings: the allocation amount unit, the V1 MD5 key (sent to the sandbox, never shown: its file is named). */
export async function setMerchant(
  use: SandboxUse,
  mchNo: string,
  settings: {allocAmountUnit?: string; md5Key?: string},
): Promise<{mchNo: string; allocAmountUnit: 'yuan' | 'cents'; epayV1Md5KeyFile?: string}> {
  if (settings.allocAmountUnit === undefined && settings.md5Key === undefined) {
    throw new UsageError('nothing to set: give --alloc-amount-unit, --md5-key-file or both')
  }
  return controlCall(await running(use), 'POST', 'merchants/settings', {mchNo, ...settings})
}

export async function bindReceiver(use: SandboxUse, receiver: Omit<BoundReceiver, 'boundAt' | 'mchNo'> & {mchNo?: string}): Promise<BoundReceiver> {
  const runtime = await running(use)
  return controlCall<BoundReceiver>(runtime, 'POST', 'receivers', {...receiver, mchNo: receiver.mchNo ?? runtime.merchant.mchNo})
}

export async function listReceivers(use: SandboxUse, mchNo?: string): Promise<BoundReceiver[]> {
  const runtime = await running(use)
  return controlCall<BoundReceiver[]>(runtime, 'GET', `receivers?mchNo=${encodeURIComponent(mchNo ?? runtime.merchant.mchNo)}`)
}

/** A merchant's balance in cents, after setting it to `amount` when given. */
export async function merchantBalance(use: SandboxUse, {mchNo, amount}: {mchNo?: string; amount?: number}): Promise<{mchNo: string; balance: number}> {
  const runtime = await running(use)
  const merchant = mchNo ?? runtime.merchant.mchNo
  return amount === undefined
    ? controlCall(runtime, 'GET', `balance?mchNo=${encodeURIComponent(merchant)}`)
    : controlCall(runtime, 'POST', 'balance', {mchNo: merchant, amount})
}

export async function addUser(use: SandboxUse, user: {account: string; password: string; mchNo?: string}): Promise<{account: string; mchNo: string}> {
  if (!user.password) throw new UsageError('the password is empty')
  const runtime = await running(use)
  return controlCall(runtime, 'POST', 'users', {...user, mchNo: user.mchNo ?? runtime.merchant.mchNo})
}

// ---------------------------------------------------------------------------------------------
// Callbacks

/** Every callback with its attempt log, oldest first. */
export async function listCallbacks(use: SandboxUse): Promise<Notification[]> {
  return sortedCallbacks(await running(use))
}

async function sortedCallbacks(runtime: SandboxRuntime): Promise<Notification[]> {
  const all = await controlCall<Notification[]>(runtime, 'GET', 'notifications')
  return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
}

/** Sends a callback again now and returns it with that attempt logged; `id` may be a unique prefix, as `callbacks list` shows it. */
export async function resendCallback(use: SandboxUse, id: string): Promise<Notification> {
  const runtime = await running(use)
  const matches = (await sortedCallbacks(runtime)).filter((n) => n.id.startsWith(id))
  if (matches.length === 0) throw new UsageError(`no callback ${id}; \`unipay sandbox callbacks list\` shows them`)
  if (matches.length > 1) throw new UsageError(`${id} matches ${matches.length} callbacks; give more of the id`)
  return controlCall<Notification>(runtime, 'POST', `notifications/${encodeURIComponent(matches[0].id)}/resend`)
}

/**
 * The events `sandbox trigger` takes. The callback's own event is in the answer's `event`: a
 * partial split is sent as alloc.success with `dataStatus` partial (protocol notes §5).
 */
export const TRIGGERABLE = [...TRIGGER_EVENTS, ...EPAY_TRIGGER_EVENTS]

/** Checks the event and the address before anything is created or started. */
function checkTrigger(event: string, notifyUrl: string): void {
  if (!(TRIGGERABLE as readonly string[]).includes(event)) {
    throw new UsageError('invalid input', [{field: 'EVENT', message: `${event} is not an event; one of ${TRIGGERABLE.join(', ')}`}])
  }
  let url: URL | undefined
  try {
    url = new URL(notifyUrl)
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError('invalid input', [{field: 'notify-url', message: `${notifyUrl} is not an http(s) address`}])
  }
}

/** Creates and drives what an event needs, so its callback goes to `notifyUrl`; returns the numbers of what was made. */
export async function triggerEvent(use: SandboxUse, event: string, notifyUrl: string): Promise<Record<string, string>> {
  checkTrigger(event, notifyUrl)
  const runtime = await running(use)
  const epay = EPAY_TRIGGER_EVENTS.find((e) => e === event)
  if (epay) return triggerEpayNotification(runtime, epay, notifyUrl)
  return controlCall(runtime, 'POST', 'trigger', {event, notifyUrl, mchNo: runtime.merchant.mchNo})
}

// ---------------------------------------------------------------------------------------------
// The request log (read from a running sandbox only: reading it never starts one)

async function runningOnly({location, notice}: SandboxUse): Promise<SandboxRuntime> {
  requireSandbox(location)
  const runtime = await findRunning(location, notice)
  if (!runtime) throw new UsageError(`the local sandbox is not running for ${location.dataDir}; start it with \`unipay sandbox start\``)
  return runtime
}

interface RequestsQuery {
  limit: number
  /** Only requests whose answer was not a success, the last `limit` of them. */
  failed: boolean
}

/** The last requests the sandbox received, oldest first; `last` is the newest sequence number. */
export async function readRequests(use: SandboxUse, query: RequestsQuery): Promise<{entries: RequestLogEntry[]; last: number; url: string}> {
  const runtime = await runningOnly(use)
  return {...(await requestsAfter(runtime, 0, query)), url: runtime.url}
}

function requestsAfter(runtime: SandboxRuntime, after: number, {limit, failed}: RequestsQuery): Promise<{entries: RequestLogEntry[]; last: number}> {
  return controlCall(runtime, 'GET', `requests?after=${after}&limit=${limit}${failed ? '&failed=true' : ''}`)
}

/** Calls `onEntry` for each request after `after` until `signal` aborts; polls, as the sandbox keeps no streams. */
export async function followRequests(
  use: SandboxUse,
  {after, failed, intervalMs = 300}: {after: number; failed: boolean; intervalMs?: number},
  onEntry: (entry: RequestLogEntry) => void,
  signal: AbortSignal,
): Promise<void> {
  // found once; its notice (which sandbox) was given when the log was first read
  const runtime = await runningOnly({...use, notice: () => {}})
  let last = after
  while (!signal.aborted) {
    const page = await requestsAfter(runtime, last, {limit: 500, failed})
    for (const entry of page.entries) onEntry(entry)
    last = Math.max(last, page.last)
    await pause(intervalMs, signal)
  }
}

/** Waits, or less when `signal` aborts; leaves no listener on the signal behind. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, {once: true})
  })
}
