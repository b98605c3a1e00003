// The control plane (/_sandbox/*): what the CLI's `sandbox` commands call to play the payer,
// the channel and the clock. One table of {method, path, input schema, handler}; every call is
// guarded first (guard.ts), its input checked by its schema, and every error answered in one
// shape, {code, message}: 403 refused, 404 no such endpoint, 400 malformed JSON (10505) or
// input failing its schema (10506) or a merchant the sandbox does not know (20023); a
// platform rule that refuses the action (20041, 20044, ...) answers HTTP 200, as the platform does.
import type {IncomingHttpHeaders} from 'node:http'
import {z} from 'zod'
import {loadPublicKey} from '../protocol/keys.js'
import {TRIGGER_EVENTS} from '../protocol/local-sandbox.js'
import {ALLOC_RECEIVER_TYPES} from '../protocol/schemas.js'
import {formatGmt8} from '../protocol/time.js'
import type {AllocService} from './alloc.js'
import {MD5_KEY_PATTERN, type Md5Keys} from './epay.js'
import {PlatformFailure, fail} from './errors.js'
import {FAULTS, type Faults} from './faults.js'
import {gatewayOrderResult, type GatewayService} from './gateway.js'
import {controlRefusal, urlRefusal} from './guard.js'
import {HttpFailure, type Management} from './management.js'
import type {Notifier} from './notifier.js'
import {payOrderResult, type PayService} from './pay.js'
import {refundRecord, type RefundService} from './refund.js'
import type {RequestLog} from './request-log.js'
import type {Merchant} from './signed-api.js'
import type {Store} from './store.js'
import {transferOrderResult, type TransferService} from './transfer.js'
import {trigger} from './trigger.js'

interface ControlDeps {
  store: Store
  pay: PayService
  refunds: RefundService
  allocs: AllocService
  transfers: TransferService
  gateway: GatewayService
  notifier: Notifier
  management: Management
  faults: Faults
  requestLog: RequestLog
  clock: {now(): Date; offsetMs(): number; advance(ms: number): void}
  registerMerchant(merchant: Merchant): void
  /** The merchants' V1 MD5 keys (absent: V1 is off, as in tests of other parts). */
  md5Keys?: Md5Keys
  controlSecret: string
  /** The Host values the sandbox answers to (guard.ts `ownHosts`). */
  hosts(): Set<string> | undefined
  /** The sandbox's own address, which a triggered callback may not be sent to. */
  publicUrl(): string
  /** A one-time dashboard sign-in ticket (dashboard.ts). */
  dashboardTicket(): {ticket: string; expiresInSeconds: number}
}

interface ControlAnswer {
  status: number
  body: unknown
}

interface ControlRoute {
  method: 'GET' | 'POST' | 'DELETE'
  /** An exact path, or a pattern whose groups are the path's (percent-encoded) parameters. */
  path: string | RegExp
  /** The JSON body of a POST, or the query of a GET or DELETE. */
  input: z.ZodType
  /** Its answer, or a promise of it (a callback resent answers once the attempt is made). */
  handle(input: unknown, params: string[]): unknown
}

function route<S extends z.ZodType>(
  method: ControlRoute['method'],
  path: string | RegExp,
  input: S,
  handle: (input: z.output<S>, params: string[]) => unknown,
): ControlRoute {
  return {method, path, input, handle: (value, params) => handle(value as z.output<S>, params)}
}

const object = <T extends z.ZodRawShape>(shape: T) => z.object(shape, {error: 'must be a JSON object'})
const required = {error: (issue: {input?: unknown}) => (issue.input === undefined ? 'is required' : 'must be a string')}
const noInput = object({})
const merchantQuery = object({mchNo: z.string().optional()})

const faultBody = object({
  fault: z.enum(FAULTS, {error: `one of ${FAULTS.join(', ')}`}),
  remaining: z.number().optional(),
  path: z.string().optional(),
  latencyMs: z.number().optional(),
})
const ADVANCE = 'whole milliseconds, more than 0 (the clock only moves forward)'
const clockBody = object({advanceMs: z.int({error: ADVANCE}).positive({error: ADVANCE})})
const orderBody = object({order: z.string(required)})
const payBody = object({
  order: z.string(required).min(1, {error: 'is required'}),
  outcome: z.enum(['success', 'fail']).optional(),
  wallet: z.string().optional(),
  method: z.string().optional(),
})
const settleBody = object({outcome: z.enum(['success', 'fail', 'close']).optional()})
const userBody = object({account: z.string().optional(), password: z.string().optional(), mchNo: z.string().optional()})
const merchantBody = object({
  mchNo: z.string({error: '1-32 letters, digits, _ or -'}).regex(/^[A-Za-z0-9_-]{1,32}$/, {error: '1-32 letters, digits, _ or -'}),
  appId: z.string().optional(),
  publicKeyPem: z.string({error: 'not an RSA public key'}).optional(),
  /** Replace a merchant of that number (its keys, its app): refused without it. */
  force: z.boolean().optional(),
})
const MD5_KEY = '1-128 printable ASCII characters, no spaces or line breaks'
const settingsBody = object({
  mchNo: z.string().optional(),
  allocAmountUnit: z.enum(['yuan', 'cents'], {error: 'yuan or cents'}).optional(),
  md5Key: z.string({error: MD5_KEY}).regex(MD5_KEY_PATTERN, {error: MD5_KEY}).optional(),
})
const receiverBody = object({
  mchNo: z.string().optional(),
  receiverType: z.enum(ALLOC_RECEIVER_TYPES, {error: `must be one of ${ALLOC_RECEIVER_TYPES.join(', ')}`}),
  receiverAccount: z.string(required).min(1, {error: 'is required'}),
  receiverName: z.string().optional(),
})
const AMOUNT = 'whole cents, at least 0'
const balanceBody = object({mchNo: z.string().optional(), amount: z.int({error: AMOUNT}).min(0, {error: AMOUNT})})
const triggerBody = object({
  event: z.enum(TRIGGER_EVENTS, {error: `one of ${TRIGGER_EVENTS.join(', ')}`}),
  notifyUrl: z.string({error: 'an http(s) address'}).regex(/^https?:\/\/\S+$/, {error: 'an http(s) address'}),
  mchNo: z.string().optional(),
})
const requestsQuery = object({after: z.string().optional(), limit: z.string().optional(), failed: z.string().optional()})

export function createControl(deps: ControlDeps) {
  const {store, pay, refunds, allocs, transfers, gateway, notifier, management, faults, requestLog, clock, registerMerchant, md5Keys} = deps

  const knownMerchant = (mchNo: string): Merchant => store.get<Merchant>('merchants', mchNo) ?? badInput(20023, `no merchant ${mchNo}`)
  const clockNow = () => ({now: formatGmt8(clock.now()), offsetMs: clock.offsetMs()})

  const routes: ControlRoute[] = [
    route('GET', '/_sandbox/faults', noInput, () => faults.list()),
    route('DELETE', '/_sandbox/faults', noInput, () => ({cleared: faults.clear()})),
    route('POST', '/_sandbox/faults', faultBody, ({fault, remaining, path, latencyMs}) => {
      const refusal = faults.refusal({fault, path})
      if (refusal) badInput(10506, refusal)
      return faults.add({fault, remaining: remaining !== undefined && Number.isSafeInteger(remaining) && remaining > 0 ? remaining : 1, path, latencyMs})
    }),
    route('GET', '/_sandbox/clock', noInput, clockNow),
    route('POST', '/_sandbox/clock', clockBody, ({advanceMs}) => {
      clock.advance(advanceMs)
      return clockNow()
    }),
    // the payee's moves, by transferNo or the merchant's bizTransferNo
    route('POST', /^\/_sandbox\/transfers\/([^/]+)\/confirm$/, noInput, (_, [ref]) => transferOrderResult(transfers.confirm(transfers.findAnyMerchant(ref).transferNo))),
    route('POST', /^\/_sandbox\/transfers\/([^/]+)\/reject$/, noInput, (_, [ref]) => transferOrderResult(transfers.reject(transfers.findAnyMerchant(ref).transferNo))),
    route('POST', '/_sandbox/gateway/close', orderBody, ({order}) =>
      gatewayOrderResult(gateway.close(gateway.findAnyMerchant(order) ?? fail(20041, `no gateway order ${order}`))),
    ),
    route('POST', '/_sandbox/pay', payBody, ({order, outcome = 'success', wallet, method}) => {
      // a gateway order is paid on its page; once paid, its number names the payment
      const gatewayOrder = store.get('payOrders', order) ? undefined : gateway.findAnyMerchant(order)
      if (gatewayOrder) return gatewayOrderResult(gateway.payerPays(gatewayOrder.orderNo, outcome, method, wallet))
      if (method) badInput(10506, 'method: only for a gateway order (the payment order already has its method)')
      return payOrderResult(pay.payerPays(order, outcome, wallet))
    }),
    route('POST', /^\/_sandbox\/refunds\/([^/]+)\/settle$/, settleBody, ({outcome = 'success'}, [refund]) =>
      refundRecord(refunds.settle(refunds.findAnyMerchant(refund), outcome)),
    ),
    route('POST', '/_sandbox/users', userBody, ({account = '', password = '', mchNo = ''}) => {
      knownMerchant(mchNo)
      return management.addUser(account, password, mchNo)
    }),
    // key files by name, never their keys
    route('GET', '/_sandbox/merchants', noInput, () =>
      store.values<Merchant>('merchants').map(({mchNo, defaultAppId, allocAmountUnit = 'yuan'}) => ({mchNo, appId: defaultAppId, allocAmountUnit, epayV1Md5KeyFile: md5Keys?.issue(mchNo)})),
    ),
    route('POST', '/_sandbox/merchants', merchantBody, ({mchNo, appId = `A${mchNo}`, publicKeyPem = '', force}) => {
      try {
        loadPublicKey(publicKeyPem)
      } catch {
        badInput(10506, 'publicKeyPem: not an RSA public key')
      }
      const existing = store.get<Merchant>('merchants', mchNo)
      if (existing && !force) {
        refuse(409, 10507, `merchant ${mchNo} already exists (app ${existing.defaultAppId}); replacing it changes the key every client of it signs with`)
      }
      registerMerchant({mchNo, appIds: [appId], defaultAppId: appId, publicKeyPem})
      return {mchNo, appId, replaced: existing !== undefined, epayV1Md5KeyFile: md5Keys?.issue(mchNo)}
    }),
    route('POST', '/_sandbox/merchants/settings', settingsBody, ({mchNo = '', allocAmountUnit, md5Key}) => {
      const merchant = knownMerchant(mchNo)
      const unit = allocAmountUnit ?? merchant.allocAmountUnit ?? 'yuan'
      if (md5Key !== undefined && !md5Keys) badInput(10506, 'md5Key: this sandbox runs without the epay module\'s V1')
      registerMerchant({...merchant, allocAmountUnit: unit})
      const epayV1Md5KeyFile = md5Key === undefined ? md5Keys?.issue(mchNo) : md5Keys!.set(mchNo, md5Key)
      return {mchNo: merchant.mchNo, allocAmountUnit: unit, epayV1Md5KeyFile}
    }),
    route('GET', '/_sandbox/receivers', merchantQuery, ({mchNo = ''}) => allocs.receivers(mchNo)),
    route('POST', '/_sandbox/receivers', receiverBody, ({mchNo = '', receiverType, receiverAccount, receiverName}) => {
      knownMerchant(mchNo)
      return allocs.bind({mchNo, receiverType, receiverAccount, receiverName})
    }),
    route('GET', '/_sandbox/balance', merchantQuery, ({mchNo = ''}) => {
      knownMerchant(mchNo)
      return {mchNo, balance: transfers.balance(mchNo)}
    }),
    route('POST', '/_sandbox/balance', balanceBody, ({mchNo = '', amount}) => {
      knownMerchant(mchNo)
      transfers.setBalance(mchNo, amount)
      return {mchNo, balance: transfers.balance(mchNo)}
    }),
    route('GET', '/_sandbox/transfers', noInput, () => transfers.all().map((t) => ({...transferOrderResult(t), mchNo: t.mchNo, submissions: t.submissions}))),
    route('POST', '/_sandbox/trigger', triggerBody, ({event, notifyUrl, mchNo = ''}) => {
      const refusal = urlRefusal(notifyUrl, deps.publicUrl())
      if (refusal) badInput(10506, `notifyUrl: ${refusal}`)
      const merchant = knownMerchant(mchNo)
      const objects = trigger({store, pay, refunds, allocs, transfers}, {event, notifyUrl, mchNo: merchant.mchNo, appId: merchant.defaultAppId})
      // the callback's own event: a partial split is sent as alloc.success (notes §5)
      return event === 'alloc.partial' ? {event: 'alloc.success', dataStatus: 'partial', ...objects} : {event, ...objects}
    }),
    route('GET', '/_sandbox/requests', requestsQuery, ({after, limit, failed}) => {
      const from = Number(after ?? 0)
      return requestLog.since(Number.isSafeInteger(from) ? from : 0, Number(limit ?? 500) || 500, failed === 'true')
    }),
    route('POST', '/_sandbox/dashboard/ticket', noInput, () => deps.dashboardTicket()),
    route('GET', '/_sandbox/notifications', noInput, () => store.values('notifications')),
    // answered once the attempt is made, with it in the log
    route('POST', /^\/_sandbox\/notifications\/([^/]+)\/resend$/, noInput, async (_, [id]) => (await notifier.resendNow(id)) ?? refuse(404, 10405, `no notification ${id}`)),
  ]

  function find(method: string, path: string): {route: ControlRoute; params: string[]} | undefined {
    for (const candidate of routes) {
      if (candidate.method !== method) continue
      if (candidate.path === path) return {route: candidate, params: []}
      const match = candidate.path instanceof RegExp ? candidate.path.exec(path) : null
      if (match) return {route: candidate, params: match.slice(1)}
    }
    return undefined
  }

  /** The input a route's schema accepts: the JSON body of a POST, the query otherwise. */
  function input(found: ControlRoute, rawText: string, query: URLSearchParams): unknown {
    let value: unknown = Object.fromEntries(query)
    if (found.method === 'POST') {
      try {
        value = JSON.parse(rawText || '{}')
      } catch (error) {
        badInput(10505, `request body is not JSON: ${(error as Error).message}`)
      }
    }
    const parsed = found.input.safeParse(value)
    if (parsed.success) return parsed.data
    return badInput(10506, parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '))
  }

  return {
    /** Answers a control call: the guard first, then the route's schema, then its handler. */
    async handle(method: string, path: string, headers: IncomingHttpHeaders, rawText: string, query: URLSearchParams): Promise<ControlAnswer> {
      const refusal = controlRefusal(method, headers, deps.controlSecret, deps.hosts(), rawText !== '')
      if (refusal) return failure(403, 403, refusal)
      const found = find(method, path)
      if (!found) return failure(404, 10404, `no control endpoint ${method} ${path}`)
      let params: string[]
      try {
        params = found.params.map((param) => decodeURIComponent(param))
      } catch {
        return failure(400, 10506, `path: ${path} is not properly percent-encoded`)
      }
      try {
        return {status: 200, body: await found.route.handle(input(found.route, rawText, query), params)}
      } catch (error) {
        if (error instanceof HttpFailure) return failure(error.httpStatus, error.code, error.message)
        if (error instanceof PlatformFailure) return failure(200, error.code, error.message)
        throw error
      }
    },
  }
}

export type Control = ReturnType<typeof createControl>

/** The one error shape of every control call. */
const failure = (status: number, code: number, message: string): ControlAnswer => ({status, body: {code, message}})

const refuse = (status: number, code: number, message: string): never => {
  throw new HttpFailure(status, code, message)
}

const badInput = (code: number, message: string): never => refuse(400, code, message)
