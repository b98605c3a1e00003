// The sandbox platform as a request handler (no listening here): route from the endpoint
// catalog, parse the raw body, check common fields, merchant, signature over the received
// fields, replay, field rules; then the domain; every answer a signed SignedResult.
import {createPrivateKey, createPublicKey, randomUUID, type KeyObject} from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {canonicalString} from '../protocol/canonical.js'
import {PAY_METHODS} from '../protocol/enums.js'
import {declaredFields, endpoints, type Endpoint} from '../protocol/endpoints.js'
import {JsonSyntaxError, parseJsonObject, toPlain, type JsonObject} from '../protocol/json.js'
import {loadPrivateKey, loadPublicKey} from '../protocol/keys.js'
import {ALLOC_RECEIVER_TYPES, allocFieldsInCents, checkFields, dropAbsent, type AllocRequest, type PayRequest, type RefundRequest, type TransferRequest} from '../protocol/schemas.js'
import type {GatewayPrePayRequest, GenerateAuthUrlRequest} from '../protocol/schemas.js'
import {signStringAsync, verifyString} from '../protocol/signature.js'
import {formatGmt8} from '../protocol/time.js'
import {AllocService, allocOrderResult, allocResult, type AllocAmountUnit} from './alloc.js'
import {AuthSessions} from './auth.js'
import {PlatformFailure, fail} from './errors.js'
import {GatewayService, gatewayOrderResult, type GatewayOrder} from './gateway.js'
import {Notifier} from './notifier.js'
import {createEpay, type EpaySecret} from './epay.js'
import {createPages} from './pages.js'
import {PayService, inferMethodFromCapability, payOrderResult, payResult} from './pay.js'
import {DEFAULT_TOKEN_TTL_SECONDS, HttpFailure, Management} from './management.js'
import {RefundService, refundOrderResult, refundRecord, refundResult} from './refund.js'
import {ReplayGuard} from './replay.js'
import {FAULTS, Faults, spoilAnswer} from './faults.js'
import {escapeHtml} from './html.js'
import {TRANSFER_PAGE_HEADERS, transferConfirmPage} from './transfer-page.js'
import {TransferService, transferCreateResult, transferOrderResult} from './transfer.js'
import type {Store} from './store.js'
import {RequestLog, type RequestLogEntry, type RequestNote} from './request-log.js'
import {diagnoseReceivedSignature} from '../protocol/received-diagnose.js'
import {trigger} from './trigger.js'
import {TRIGGER_EVENTS, type FaultRule, type TriggerEvent} from '../protocol/local-sandbox.js'
import {STATE_CHANGING_PAGES, controlRefusal, hostRefusal, ownHosts, pagePostRefusal} from './guard.js'
import {DASHBOARD_PATH, createDashboard} from './dashboard.js'

export interface Merchant {
  mchNo: string
  appIds: string[]
  defaultAppId: string
  publicKeyPem: string
  /** Receiver amounts of allocations, in requests and answers (default yuan, as the spec says). */
  allocAmountUnit?: AllocAmountUnit
}

export interface SandboxOptions {
  store: Store
  platformPrivateKeyPem: string
  /** The management API's login key pair (passwords are encrypted with its public key). */
  loginPrivateKeyPem: string
  tokenTtlSeconds?: number
  now?: () => Date
  timeScale?: number
  /** Replay and reqTime checks (on by default, as on the platform). */
  replayChecks?: boolean
  publicUrl: () => string
  /** Required in every control call (see guard.ts). */
  controlSecret: string
  /** Called with each request once answered (the foreground mode prints them). */
  onRequest?: (entry: RequestLogEntry) => void
  /** MD5 keys of the compatibility module's V1, by merchant number. */
  epayMd5Keys?: Record<string, EpaySecret>
}

interface CallContext {
  body: Record<string, unknown>
  /** The body as received, for the string to sign. */
  received: JsonObject
  merchant: Merchant
  appId: string
  clientIp?: string
}

type Handler = (call: CallContext) => unknown

const MAX_BODY_BYTES = 1024 * 1024

export function createSandboxApp(options: SandboxOptions) {
  // The sandbox clock: real time plus an offset that `sandbox clock advance` moves forward (kept
  // in the journal, so a restart keeps it). Clients sign with the real time, so replay and
  // timestamp windows compare with realNow.
  const realNow = options.now ?? (() => new Date())
  const {store} = options
  let clockOffsetMs = store.get<number>('meta', 'clockOffsetMs') ?? 0
  const now = () => new Date(realNow().getTime() + clockOffsetMs)
  const platformKey = loadPrivateKey(options.platformPrivateKeyPem)
  const notifier = new Notifier({store, platformKey, timeScale: options.timeScale ?? 1, now, signingNow: realNow})
  const pay = new PayService({store, notifier, now, publicUrl: options.publicUrl})
  const refunds = new RefundService({store, pay, notifier, now, timeScale: options.timeScale ?? 1})
  const loginKey = createPrivateKey(options.loginPrivateKeyPem)
  const management = new Management({
    store,
    refunds,
    loginKeyPem: options.loginPrivateKeyPem,
    loginPublicKeyDer: createPublicKey(loginKey).export({format: 'der', type: 'spki'}).toString('base64'),
    now,
    tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS,
  })
  const allocs = new AllocService({store, pay, notifier, now, timeScale: options.timeScale ?? 1})
  const transfers = new TransferService({store, notifier, now, timeScale: options.timeScale ?? 1, publicUrl: options.publicUrl})
  const gateway = new GatewayService({store, notifier, pay, now, publicUrl: options.publicUrl})
  const authSessions = new AuthSessions({store, now, publicUrl: options.publicUrl})
  const pages = createPages({gateway, pay, auth: authSessions, now, publicUrl: options.publicUrl})
  const replay = new ReplayGuard(realNow, store)
  const faults = new Faults()
  const requestLog = new RequestLog(options.onRequest)
  const dashboard = createDashboard({store, pay, refunds, transfers, notifier})

  /** Answers a call the way the injected fault says (see faults.ts for before/after processing). */
  async function strike(rule: FaultRule, path: string, rawText: string, res: ServerResponse, send: (status: number, body: string, type?: string) => void): Promise<void> {
    switch (rule.fault) {
      case 'latency':
        await new Promise((resolve) => setTimeout(resolve, rule.latencyMs ?? 2000))
        return send(200, await call(path, rawText))
      case 'http-500':
        return send(500, '{"error":"injected fault: internal error"}')
      case 'not-json':
        return send(200, '<html><body>502 Bad Gateway (injected fault)</body></html>', 'text/html')
      case 'reset': {
        const answer = await call(path, rawText)
        res.writeHead(200, {'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer)})
        res.write(answer.slice(0, Math.floor(answer.length / 2)))
        res.destroy()
        return
      }
      case 'timeout':
        await call(path, rawText)
        return // never answered; the client gives up, and closing the server cuts the socket
      case 'unsigned-success':
      case 'bad-signature':
        return send(200, spoilAnswer(rule.fault, await call(path, rawText)))
    }
  }
  const epay = createEpay({
    store, pay, refunds, notifier, platformKey, now, clientNow: realNow, publicUrl: options.publicUrl,
    md5Keys: (mchNo) => options.epayMd5Keys?.[mchNo],
    timestampChecks: options.replayChecks !== false,
    replay: options.replayChecks !== false ? replay : undefined,
  })
  const merchantKeys = new Map<string, KeyObject>()

  const routes = new Map<string, {endpoint: Endpoint; handle: Handler}>([
    [endpoints.pay.path, {endpoint: endpoints.pay, handle: ({body}) => payResult(pay.create(body as PayRequest))}],
    [
      endpoints.close.path,
      {
        endpoint: endpoints.close,
        handle: ({body, merchant}) => {
          const unpaidGateway = gatewayNotPaid(merchant.mchNo, body)
          if (unpaidGateway) gateway.close(unpaidGateway)
          else pay.close(merchant.mchNo, body, body.useCancel === true)
          return null
        },
      },
    ],
    [
      endpoints.syncPay.path,
      {endpoint: endpoints.syncPay, handle: ({body, merchant}) => pay.sync(merchant.mchNo, body, findPayment(merchant.mchNo, body))},
    ],
    [endpoints.queryPay.path, {endpoint: endpoints.queryPay, handle: ({body, merchant}) => payOrderResult(findPayment(merchant.mchNo, body))}],
    [
      endpoints.refund.path,
      {endpoint: endpoints.refund, handle: ({body, clientIp}) => refundResult(refunds.create(body as RefundRequest, clientIp))},
    ],
    [
      endpoints.queryRefund.path,
      {endpoint: endpoints.queryRefund, handle: ({body, merchant}) => refundOrderResult(refunds.find(merchant.mchNo, body))},
    ],
    [
      endpoints.syncRefund.path,
      {endpoint: endpoints.syncRefund, handle: ({body, merchant}) => refunds.sync(refunds.find(merchant.mchNo, body))},
    ],
    [
      endpoints.alloc.path,
      {
        endpoint: endpoints.alloc,
        handle: ({body, appId, merchant}) => {
          const request = body as AllocRequest
          // kept in yuan inside; a cents merchant's whole cents are exact as yuan numbers (60 -> 0.6)
          const receivers = merchant.allocAmountUnit === 'cents' ? request.receivers.map((r) => ({...r, amount: r.amount / 100})) : request.receivers
          return allocResult(allocs.create({...request, receivers}, appId))
        },
      },
    ],
    [
      endpoints.queryAlloc.path,
      {endpoint: endpoints.queryAlloc, handle: ({body, merchant}) => allocOrderResult(allocs.find(merchant.mchNo, body), merchant.allocAmountUnit)},
    ],
    [
      endpoints.syncAlloc.path,
      {endpoint: endpoints.syncAlloc, handle: ({body, merchant}) => ({orderStatus: allocs.find(merchant.mchNo, body).status, adjust: false})},
    ],
    [
      endpoints.transfer.path,
      {endpoint: endpoints.transfer, handle: ({body, appId}) => transferCreateResult(transfers.create(body as TransferRequest, appId))},
    ],
    [
      endpoints.queryTransfer.path,
      {endpoint: endpoints.queryTransfer, handle: ({body, merchant}) => transferOrderResult(transfers.find(merchant.mchNo, body))},
    ],
    [
      endpoints.syncTransfer.path,
      {endpoint: endpoints.syncTransfer, handle: ({body, merchant}) => transfers.sync(transfers.find(merchant.mchNo, body))},
    ],
    [
      endpoints.ping.path,
      {
        endpoint: endpoints.ping,
        handle: ({body, received, merchant, appId}) => ({
          mchNo: merchant.mchNo,
          appId,
          appFromDefault: !body.appId,
          serverSignStr: canonicalString(received),
        }),
      },
    ],
  ])
  routes.set(endpoints.gatewayPrePay.path, {
    endpoint: endpoints.gatewayPrePay,
    handle: ({body, appId}) => gateway.prePayResult(gateway.prePay(body as GatewayPrePayRequest, appId)),
  })
  routes.set(endpoints.queryGateway.path, {endpoint: endpoints.queryGateway, handle: ({body, merchant}) => gatewayOrderResult(gateway.find(merchant.mchNo, body))})
  routes.set(endpoints.generateAuthUrl.path, {
    endpoint: endpoints.generateAuthUrl,
    handle: ({body, appId}) => authSessions.create(body as GenerateAuthUrlRequest, appId),
  })

  /** A gateway order the reference names that has no payment yet (not paid), if any. */
  function gatewayNotPaid(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string}): GatewayOrder | undefined {
    if (!ref.orderNo && !ref.bizOrderNo) return undefined
    if (ref.orderNo ? store.get('payOrders', ref.orderNo) : pay.hasBizOrderNo(mchNo, ref.bizOrderNo!)) return undefined
    try {
      return gateway.find(mchNo, ref)
    } catch (error) {
      if (error instanceof PlatformFailure) return undefined
      throw error
    }
  }

  /** A payment; a gateway order is one only once paid, and the answer says where to look before. */
  function findPayment(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string}) {
    const unpaid = gatewayNotPaid(mchNo, ref)
    if (unpaid) {
      fail(20041, `${unpaid.orderNo} is a gateway order that is ${unpaid.status}: it becomes a payment only once paid; query it as a gateway order (query gateway)`)
    }
    return pay.find(mchNo, ref)
  }

  function merchantKey(merchant: Merchant): KeyObject {
    let key = merchantKeys.get(merchant.mchNo)
    if (!key) merchantKeys.set(merchant.mchNo, (key = loadPublicKey(merchant.publicKeyPem)))
    return key
  }

  /** What a call answers, before it is signed (the domain's work, journaled, is done by then). */
  interface Answer {
    code: number
    msg: string
    data: unknown
    reqId: string
  }

  async function signedAnswer({code, msg, data, reqId}: Answer): Promise<string> {
    // resTime on the real clock, like reqTime: clients check an answer's freshness against theirs
    const body: Record<string, unknown> = {code, msg, data: data ?? null, resTime: formatGmt8(realNow()), reqId, traceId: randomUUID()}
    body.sign = await signStringAsync(canonicalString(body), platformKey)
    return JSON.stringify(body)
  }

  /**
   * Handles a signed call and signs its answer. The callbacks the call caused wait until the
   * answer is handed to the socket: its caller sends it in the continuation of this promise,
   * which runs before the released notifications are scheduled (setImmediate).
   */
  async function call(path: string, rawText: string, note?: RequestNote): Promise<string> {
    const {value, release} = notifier.withheld(() => store.grouped(() => answer(path, rawText, note)))
    try {
      return await signedAnswer(value)
    } finally {
      release()
    }
  }

  function answer(path: string, rawText: string, note?: RequestNote): Answer {
    const route = routes.get(path)!
    let reqId = ''
    try {
      let raw: JsonObject
      try {
        raw = parseJsonObject(rawText)
      } catch (error) {
        return {code: 10505, msg: `request body is not JSON: ${(error as JsonSyntaxError).message}`, data: null, reqId: ''}
      }
      if (typeof raw.reqId === 'string') reqId = raw.reqId
      for (const field of ['mchNo', 'reqId', 'reqTime', 'sign']) {
        if (typeof raw[field] !== 'string' || raw[field] === '') fail(10506, `${field}: is required`)
      }
      const merchant = store.get<Merchant>('merchants', raw.mchNo as string)
      if (!merchant) return fail(20023, `merchant ${raw.mchNo as string} is unknown or disabled`)
      const appId = typeof raw.appId === 'string' && raw.appId !== '' ? raw.appId : merchant.defaultAppId
      if (!merchant.appIds.includes(appId)) fail(20023, `app ${appId} is not configured for merchant ${merchant.mchNo}`)
      // over every field received, exactly as sent: the same rule as `unipay verify --request`
      const serverString = canonicalString(raw)
      if (note) note.merchant = merchant.mchNo
      if (!verifyString(serverString, raw.sign as string, merchantKey(merchant))) {
        if (note) note.signature = diagnoseReceivedSignature(raw, serverString, raw.sign as string, merchantKey(merchant))
        fail(20052, `signature verification failed; server string to sign: ${serverString}`)
      }
      if (options.replayChecks !== false) {
        replay.check(merchant.mchNo, reqId, typeof raw.nonceStr === 'string' ? raw.nonceStr : undefined, raw.reqTime as string)
      }
      // only once the signature holds: absent values out, undeclared fields ignored, defaults filled
      const fields = route.endpoint === endpoints.alloc && merchant.allocAmountUnit === 'cents' ? allocFieldsInCents : route.endpoint.fields
      const received = dropAbsent(fields, toPlain(raw)) as Record<string, unknown>
      const plain: Record<string, unknown> = {...route.endpoint.defaults}
      for (const field of declaredFields(route.endpoint)) if (received[field] !== undefined) plain[field] = received[field]
      if (route.endpoint === endpoints.pay) {
        inferMethodFromCapability(plain)
        authSessions.fillStoredOpenId(merchant.mchNo, appId, plain)
      }
      if (typeof plain.method === 'string' && !(PAY_METHODS as readonly string[]).includes(plain.method)) {
        fail(20012, `method ${plain.method} is unknown`)
      }
      // the endpoint's own check (fast rules where it has them), unless a merchant setting changes the schema
      const problems = fields === route.endpoint.fields ? route.endpoint.check(plain) : checkFields(fields, plain)
      if (problems.length > 0) fail(10506, problems.map((p) => `${p.field}: ${p.message}`).join('; '))
      const data = route.handle({body: plain, received: raw, merchant, appId, clientIp: typeof plain.clientIp === 'string' ? plain.clientIp : undefined})
      return {code: 0, msg: 'success', data, reqId}
    } catch (error) {
      if (error instanceof PlatformFailure) return {code: error.code, msg: error.message, data: null, reqId}
      throw error
    }
  }

  function control(method: string, path: string, rawText: string, query: URLSearchParams): {status: number; body: unknown} {
    if (path === '/_sandbox/faults') {
      if (method === 'GET') return {status: 200, body: faults.list()}
      if (method === 'DELETE') return {status: 200, body: {cleared: faults.clear()}}
      const input = JSON.parse(rawText || '{}') as Partial<FaultRule>
      if (!(FAULTS as readonly string[]).includes(input.fault ?? '')) return {status: 400, body: {code: 10506, message: `fault: one of ${FAULTS.join(', ')}`}}
      const remaining = Number.isSafeInteger(input.remaining) && (input.remaining as number) > 0 ? (input.remaining as number) : 1
      return {status: 200, body: faults.add({fault: input.fault!, remaining, path: input.path, latencyMs: input.latencyMs})}
    }
    if (path === '/_sandbox/clock') {
      if (method === 'POST') {
        const input = JSON.parse(rawText || '{}') as {advanceMs?: number}
        if (!Number.isSafeInteger(input.advanceMs) || (input.advanceMs as number) <= 0) {
          return {status: 400, body: {code: 10506, message: 'advanceMs: whole milliseconds, more than 0 (the clock only moves forward)'}}
        }
        clockOffsetMs += input.advanceMs as number
        store.put('meta', 'clockOffsetMs', clockOffsetMs)
        catchUp()
      }
      return {status: 200, body: {now: formatGmt8(now()), offsetMs: clockOffsetMs}}
    }
    const payee = /^\/_sandbox\/transfers\/([^/]+)\/(confirm|reject)$/.exec(path)
    if (method === 'POST' && payee) {
      const transferNo = decodeURIComponent(payee[1])
      const transfer = payee[2] === 'confirm' ? transfers.confirm(transferNo) : transfers.reject(transferNo)
      return {status: 200, body: transferOrderResult(transfer)}
    }
    if (method === 'POST' && path === '/_sandbox/gateway/close') {
      const input = JSON.parse(rawText || '{}') as {order?: string}
      const order = gateway.findAnyMerchant(input.order ?? '') ?? fail(20041, `no gateway order ${input.order ?? ''}`)
      return {status: 200, body: gatewayOrderResult(gateway.close(order))}
    }
    if (method === 'POST' && path === '/_sandbox/pay') {
      const input = JSON.parse(rawText || '{}') as {order?: string; outcome?: 'success' | 'fail'; wallet?: string; method?: string}
      if (!input.order) return {status: 400, body: {error: 'order is required'}}
      const outcome = input.outcome ?? 'success'
      // a gateway order is paid on its page; once paid, its number names the payment
      const gatewayOrder = store.get('payOrders', input.order) ? undefined : gateway.findAnyMerchant(input.order)
      if (gatewayOrder) return {status: 200, body: gatewayOrderResult(gateway.payerPays(gatewayOrder.orderNo, outcome, input.method, input.wallet))}
      if (input.method) return {status: 400, body: {code: 10506, message: 'method: only for a gateway order (the payment order already has its method)'}}
      return {status: 200, body: payOrderResult(pay.payerPays(input.order, outcome, input.wallet))}
    }
    const settle = /^\/_sandbox\/refunds\/([^/]+)\/settle$/.exec(path)
    if (method === 'POST' && settle) {
      const input = JSON.parse(rawText || '{}') as {outcome?: 'success' | 'fail' | 'close'}
      const refund = refunds.settle(refunds.findAnyMerchant(decodeURIComponent(settle[1])), input.outcome ?? 'success')
      return {status: 200, body: refundRecord(refund)}
    }
    if (method === 'POST' && path === '/_sandbox/users') {
      const input = JSON.parse(rawText || '{}') as {account?: string; password?: string; mchNo?: string}
      const mchNo = input.mchNo ?? ''
      if (!store.get<Merchant>('merchants', mchNo)) return {status: 400, body: {code: 20023, message: `no merchant ${mchNo}`}}
      return {status: 200, body: management.addUser(input.account ?? '', input.password ?? '', mchNo)}
    }
    if (method === 'POST' && path === '/_sandbox/merchants') {
      const input = JSON.parse(rawText || '{}') as {mchNo?: string; appId?: string; publicKeyPem?: string}
      if (!input.mchNo || !/^[A-Za-z0-9_-]{1,32}$/.test(input.mchNo)) return {status: 400, body: {code: 10506, message: 'mchNo: 1-32 letters, digits, _ or -'}}
      try {
        loadPublicKey(input.publicKeyPem ?? '')
      } catch {
        return {status: 400, body: {code: 10506, message: 'publicKeyPem: not an RSA public key'}}
      }
      const appId = input.appId ?? `A${input.mchNo}`
      registerMerchant({mchNo: input.mchNo, appIds: [appId], defaultAppId: appId, publicKeyPem: input.publicKeyPem!})
      return {status: 200, body: {mchNo: input.mchNo, appId}}
    }
    if (method === 'POST' && path === '/_sandbox/merchants/settings') {
      const input = JSON.parse(rawText || '{}') as {mchNo?: string; allocAmountUnit?: string}
      const merchant = store.get<Merchant>('merchants', input.mchNo ?? '')
      if (!merchant) return {status: 400, body: {code: 20023, message: `no merchant ${input.mchNo ?? ''}`}}
      const unit = input.allocAmountUnit ?? merchant.allocAmountUnit ?? 'yuan'
      if (unit !== 'yuan' && unit !== 'cents') return {status: 400, body: {code: 10506, message: 'allocAmountUnit: yuan or cents'}}
      registerMerchant({...merchant, allocAmountUnit: unit})
      return {status: 200, body: {mchNo: merchant.mchNo, allocAmountUnit: unit}}
    }
    if (path === '/_sandbox/receivers') {
      const input = method === 'POST' ? (JSON.parse(rawText || '{}') as Record<string, string | undefined>) : {}
      if (method === 'GET') return {status: 200, body: allocs.receivers(query.get('mchNo') ?? '')}
      const {mchNo = '', receiverType = '', receiverAccount = '', receiverName} = input
      if (!store.get<Merchant>('merchants', mchNo)) return {status: 400, body: {code: 20023, message: `no merchant ${mchNo}`}}
      if (!(ALLOC_RECEIVER_TYPES as readonly string[]).includes(receiverType)) {
        return {status: 400, body: {code: 10506, message: `receiverType: must be one of ${ALLOC_RECEIVER_TYPES.join(', ')}`}}
      }
      if (!receiverAccount) return {status: 400, body: {code: 10506, message: 'receiverAccount: is required'}}
      return {status: 200, body: allocs.bind({mchNo, receiverType, receiverAccount, receiverName})}
    }
    if (path === '/_sandbox/balance') {
      const input = method === 'POST' ? (JSON.parse(rawText || '{}') as {mchNo?: string; amount?: number}) : {mchNo: query.get('mchNo') ?? ''}
      const mchNo = input.mchNo ?? ''
      if (!store.get<Merchant>('merchants', mchNo)) return {status: 400, body: {code: 20023, message: `no merchant ${mchNo}`}}
      if (method === 'POST') {
        if (!Number.isSafeInteger(input.amount) || (input.amount as number) < 0) return {status: 400, body: {code: 10506, message: 'amount: whole cents, at least 0'}}
        transfers.setBalance(mchNo, input.amount as number)
      }
      return {status: 200, body: {mchNo, balance: transfers.balance(mchNo)}}
    }
    if (method === 'GET' && path === '/_sandbox/transfers') {
      return {status: 200, body: transfers.all().map((t) => ({...transferOrderResult(t), mchNo: t.mchNo, submissions: t.submissions}))}
    }
    if (method === 'POST' && path === '/_sandbox/trigger') {
      const input = JSON.parse(rawText || '{}') as {event?: string; notifyUrl?: string; mchNo?: string}
      if (!(TRIGGER_EVENTS as readonly string[]).includes(input.event ?? '')) return {status: 400, body: {code: 10506, message: `event: one of ${TRIGGER_EVENTS.join(', ')}`}}
      if (!/^https?:\/\/\S+$/.test(input.notifyUrl ?? '')) return {status: 400, body: {code: 10506, message: 'notifyUrl: an http(s) address'}}
      const merchant = store.get<Merchant>('merchants', input.mchNo ?? '')
      if (!merchant) return {status: 400, body: {code: 20023, message: `no merchant ${input.mchNo ?? ''}`}}
      const objects = trigger({store, pay, refunds, allocs, transfers}, {event: input.event as TriggerEvent, notifyUrl: input.notifyUrl!, mchNo: merchant.mchNo, appId: merchant.defaultAppId})
      return {status: 200, body: {event: input.event, ...objects}}
    }
    if (method === 'GET' && path === '/_sandbox/requests') {
      const after = Number(query.get('after') ?? 0)
      return {status: 200, body: requestLog.since(Number.isSafeInteger(after) ? after : 0, Number(query.get('limit') ?? 500) || 500)}
    }
    if (method === 'GET' && path === '/_sandbox/notifications') {
      return {status: 200, body: store.values('notifications')}
    }
    const resend = /^\/_sandbox\/notifications\/([^/]+)\/resend$/.exec(path)
    if (method === 'POST' && resend) {
      const notification = notifier.resend(decodeURIComponent(resend[1]))
      return notification ? {status: 200, body: notification} : {status: 404, body: {error: `no notification ${resend[1]}`}}
    }
    return {status: 404, body: {error: `no control endpoint ${method} ${path}`}}
  }

  /** Management endpoints answer Result {code, message, data}, unsigned. */
  function manage(method: string, url: URL, rawText: string, token: string | undefined): {status: number; body: unknown} {
    const ok = (data: unknown) => ({status: 200, body: {code: 0, message: 'success', data}})
    try {
      const route = `${method} ${url.pathname}`
      if (route === 'GET /token/public-key') return ok(management.publicKey())
      if (route === 'POST /token/login') return ok(management.login(new URLSearchParams(rawText)))
      if (route === 'GET /mch/order/refund/page') return ok(management.refundPage(token, url.searchParams))
      if (route === 'GET /mch/order/refund/get-by-id') return ok(management.refundById(token, url.searchParams))
      return {status: 404, body: {code: 10404, message: `no route ${route}`, data: null}}
    } catch (error) {
      if (error instanceof HttpFailure) return {status: error.httpStatus, body: {code: error.code, message: error.message, data: null}}
      if (error instanceof PlatformFailure) return {status: 200, body: {code: error.code, message: error.message, data: null}}
      throw error
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const send = (status: number, body: string, type = 'application/json; charset=utf-8') => {
      res.writeHead(status, {'content-type': type, 'content-length': Buffer.byteLength(body)})
      res.end(body)
    }
    // reading the log, and the dashboard's live refresh, are not logged: both poll
    const polling = url.pathname === '/_sandbox/requests' || (req.method === 'GET' && url.pathname === DASHBOARD_PATH)
    const note: RequestNote = polling ? {} : requestLog.watch(req, res, url)
    try {
      if (req.method === 'GET' && url.pathname === '/unipay/callback/ping') {
        return send(200, JSON.stringify({code: 0, msg: 'pong', data: formatGmt8(now())}))
      }
      const rawText = await readBody(req)
      note.body = rawText
      // only pages and control calls check Host: signed API calls skip parsing the address
      const hosts = () => ownHosts(options.publicUrl())
      if (req.method === 'POST' && STATE_CHANGING_PAGES.test(url.pathname)) {
        const refusal = pagePostRefusal(req.headers, hosts())
        if (refusal) return send(403, `<!doctype html><meta charset="utf-8"><p>${escapeHtml(refusal)}</p>`, 'text/html; charset=utf-8')
      }
      if (url.pathname === DASHBOARD_PATH) {
        // reading it from a rebound name would show the orders to another site
        const refusal = hostRefusal(req.headers, hosts())
        if (refusal) return send(403, `<!doctype html><meta charset="utf-8"><p>${escapeHtml(refusal)}</p>`, 'text/html; charset=utf-8')
        const page = dashboard.handle(req.method ?? 'GET', rawText)
        res.writeHead(page.status, page.headers)
        return void res.end(page.body)
      }
      const page = await pages.handle(req.method ?? 'GET', url, rawText, req.headers['user-agent'] ?? '')
      if (page) {
        res.writeHead(page.status, page.headers)
        return void res.end(page.body)
      }
      const unsigned = authSessions.unsignedCall(req.method ?? 'GET', url.pathname, rawText)
      if (unsigned) return send(200, JSON.stringify(unsigned))
      const confirm = /^\/transfer\/confirm\/([A-Za-z0-9]+)$/.exec(url.pathname)
      if (confirm) {
        const transfer = transfers.byNumber(confirm[1])
        const sendPage = (status: number, body: string) => {
          res.writeHead(status, {...TRANSFER_PAGE_HEADERS, 'content-length': Buffer.byteLength(body)}).end(body)
        }
        if (!transfer) return sendPage(404, '<!doctype html><meta charset="utf-8"><p>No such transfer.</p>')
        if (req.method === 'POST') {
          try {
            transfers.confirm(transfer.transferNo)
          } catch (error) {
            if (!(error instanceof PlatformFailure)) throw error
            return sendPage(409, transferConfirmPage(transfer, error.message))
          }
          res.writeHead(303, {location: url.pathname}).end()
          return
        }
        return sendPage(200, transferConfirmPage(transfers.byNumber(transfer.transferNo)!))
      }
      if (url.pathname.startsWith('/token/') || url.pathname.startsWith('/mch/')) {
        const answer = manage(req.method ?? 'GET', url, rawText, req.headers.accesstoken as string | undefined)
        return send(answer.status, JSON.stringify(answer.body))
      }
      if (url.pathname.startsWith('/_sandbox/')) {
        const refusal = controlRefusal(req.method ?? 'GET', req.headers, options.controlSecret, hosts(), rawText !== '')
        if (refusal) return send(403, JSON.stringify({error: refusal}))
        const answer = control(req.method ?? 'GET', url.pathname, rawText, url.searchParams)
        return send(answer.status, JSON.stringify(answer.body))
      }
      if (url.pathname.startsWith('/epay/')) {
        const answer = epay.handle(req.method ?? 'GET', url, rawText, req.headers['content-type'])
        res.writeHead(answer.status, answer.headers)
        return void res.end(answer.body)
      }
      if (req.method !== 'POST' || !routes.has(url.pathname)) {
        return send(404, JSON.stringify({code: 10404, message: `no route ${req.method} ${url.pathname}`, data: null}))
      }
      const fault = faults.take(url.pathname)
      if (!fault) return send(200, await call(url.pathname, rawText, note))
      await strike(fault, url.pathname, rawText, res, send)
    } catch (error) {
      if (error instanceof PlatformFailure) {
        return send(200, JSON.stringify({code: error.code, message: error.message, data: null}))
      }
      if (error instanceof BodyTooLarge) return send(413, JSON.stringify({code: 10505, message: error.message, data: null}))
      send(500, JSON.stringify({code: 1, message: `sandbox error: ${(error as Error).message}`, data: null}))
    }
  }

  /** Applies at once what the moved clock made due: expiries, settlements, closes, callback retries. */
  function catchUp(): void {
    pay.expireDue()
    gateway.expireDue()
    refunds.settleDue()
    allocs.settleDue()
    transfers.settleDue()
    notifier.wake()
  }

  function registerMerchant(merchant: Merchant): void {
    store.put('merchants', merchant.mchNo, merchant)
    merchantKeys.delete(merchant.mchNo)
  }

  return {
    handle,
    registerMerchant,
    start() {
      notifier.start()
      pay.startExpiry()
      refunds.start()
      allocs.start()
      transfers.start()
      gateway.startExpiry()
    },
    stop() {
      notifier.stop()
      pay.stop()
      refunds.stop()
      allocs.stop()
      transfers.stop()
      gateway.stop()
    },
  }
}

export type SandboxApp = ReturnType<typeof createSandboxApp>

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge(`request body over ${MAX_BODY_BYTES} bytes`))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
