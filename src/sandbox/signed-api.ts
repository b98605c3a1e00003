// The signed API (/unipay/*), one linear pipeline per call: route from the endpoint catalog,
// parse the raw body, check common fields, merchant, signature over the received fields,
// replay, field rules; then the domain; every answer a signed SignedResult. Fault injection
// (faults.ts) wraps the pipeline.
import {randomUUID, type KeyObject} from 'node:crypto'
import type {ServerResponse} from 'node:http'
import {canonicalString} from '../protocol/canonical.js'
import {PAY_METHODS} from '../protocol/enums.js'
import {declaredFields, endpoints, type Endpoint} from '../protocol/endpoints.js'
import {foreignInputProblem} from '../protocol/foreign-input.js'
import {JsonTooCostlyError, JsonSyntaxError, parseJsonObject, toPlain, type JsonObject} from '../protocol/json.js'
import {loadPublicKey} from '../protocol/keys.js'
import {SANDBOX_CHANNEL_MCH_NOS} from '../protocol/local-sandbox.js'
import {diagnoseReceivedSignature} from '../protocol/received-diagnose.js'
import {allocFieldsInCents, checkFields, dropAbsent, type AllocRequest, type GatewayPrePayRequest, type GenerateAuthUrlRequest, type PayRequest, type RefundRequest, type TransferRequest} from '../protocol/schemas.js'
import {canonicalBase64Problem, signStringAsync, verifyString} from '../protocol/signature.js'
import {formatGmt8} from '../protocol/time.js'
import {allocOrderResult, allocResult, type AllocAmountUnit, type AllocService} from './alloc.js'
import type {AuthSessions} from './auth.js'
import {PlatformFailure, fail} from './errors.js'
import {strike, type Faults} from './faults.js'
import {refuseOwnUrls} from './guard.js'
import {gatewayOrderResult, type GatewayOrder, type GatewayService} from './gateway.js'
import type {Notifier} from './notifier.js'
import {payOrderResult, payResult, type PayService} from './pay.js'
import {inferMethodFromCapability} from './pay-method.js'
import {refundOrderResult, refundResult, type RefundService} from './refund.js'
import type {ReplayGuard} from './replay.js'
import type {RequestNote} from './request-log.js'
import type {Store} from './store.js'
import {ignoredTransferFields, transferCreateResult, transferOrderResult, type TransferService} from './transfer.js'

export interface Merchant {
  mchNo: string
  appIds: string[]
  defaultAppId: string
  publicKeyPem: string
  /** Receiver amounts of allocations, in requests and answers (default yuan, as the spec says). */
  allocAmountUnit?: AllocAmountUnit
  /** The channel merchant numbers configured for it (default SANDBOX_CHANNEL_MCH_NOS). */
  channelMchNos?: string[]
}

/** Bounds checked before anything else is done with a field: too long a value names its field (10506), never another error. */
const BOUNDS: [field: string, max: number][] = [['mchNo', 32], ['sign', 1024]]
/** The spec's longest reqId: a longer one is refused, never echoed (a hostile body must not buy a huge answer). */
const MAX_REQ_ID_CHARS = 64

interface SignedApiDeps {
  store: Store
  notifier: Notifier
  pay: PayService
  refunds: RefundService
  allocs: AllocService
  transfers: TransferService
  gateway: GatewayService
  authSessions: AuthSessions
  /** Checks reused reqId/nonceStr and stale reqTime; undefined when replay checks are off. */
  replay: ReplayGuard | undefined
  faults: Faults
  platformKey: KeyObject
  /** The real clock: clients sign with it, so answers are stamped with it too. */
  realNow: () => Date
  /** The sandbox's own address, which no notifyUrl or returnUrl may name. */
  publicUrl: () => string
}

/** Writes a whole answer (the dispatcher's `send`). */
export type Send = (status: number, body: string, type?: string) => void

interface CallContext {
  body: Record<string, unknown>
  /** The body as received, for the string to sign. */
  received: JsonObject
  merchant: Merchant
  appId: string
  clientIp?: string
}

type Handler = (call: CallContext) => unknown

/** What a call answers, before it is signed (the domain's work, journaled, is done by then). */
interface Answer {
  code: number
  msg: string
  data: unknown
  reqId: string
}

export function createSignedApi(deps: SignedApiDeps) {
  const {store, notifier, pay, refunds, allocs, transfers, gateway, authSessions, replay, faults, platformKey, realNow} = deps
  const merchantKeys = new Map<string, KeyObject>()

  const routes = new Map<string, {endpoint: Endpoint; handle: Handler}>([
    [endpoints.pay.path, {endpoint: endpoints.pay, handle: ({body}) => payResult(pay.create(body as PayRequest))}],
    [
      endpoints.close.path,
      {
        endpoint: endpoints.close,
        handle: ({body, merchant}) => {
          // a gateway order, paid or not, is closed (or refused) in gateway words
          const gatewayOrder = gatewayOrderOf(merchant.mchNo, body)
          if (gatewayOrder) gateway.close(gatewayOrder)
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

  /** The gateway order a reference names (orderNo, its GT... tradeNo, or bizOrderNo), if any. */
  function gatewayOrderOf(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string}): GatewayOrder | undefined {
    if (!ref.orderNo && !ref.bizOrderNo) return undefined
    try {
      return gateway.find(mchNo, ref)
    } catch (error) {
      if (error instanceof PlatformFailure) return undefined
      throw error
    }
  }

  /** A payment; a gateway order is one only once paid, and the answer says where to look before. */
  function findPayment(mchNo: string, ref: {orderNo?: string; bizOrderNo?: string; outOrderNo?: string}) {
    const unpaid = gatewayOrderOf(mchNo, ref)
    if (unpaid && unpaid.status !== 'paid') {
      fail(20041, `${unpaid.orderNo} is a gateway order that is ${unpaid.status}: it becomes a payment only once paid; query it as a gateway order (query gateway)`)
    }
    return pay.find(mchNo, ref)
  }

  function merchantKey(merchant: Merchant): KeyObject {
    let key = merchantKeys.get(merchant.mchNo)
    if (!key) merchantKeys.set(merchant.mchNo, (key = loadPublicKey(merchant.publicKeyPem)))
    return key
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
    if (note) {
      note.code = String(value.code)
      note.message = value.msg
    }
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
        if (error instanceof JsonTooCostlyError) return {code: 10505, msg: `request body: ${error.message}`, data: null, reqId: ''}
        return {code: 10505, msg: `request body is not JSON: ${(error as JsonSyntaxError).message}`, data: null, reqId: ''}
      }
      // echoed on every answer, the earliest refusals too, when it is one the spec allows
      if (typeof raw.reqId === 'string' && raw.reqId.length <= MAX_REQ_ID_CHARS) reqId = raw.reqId
      // before anything else is read from it (protocol-notes section 1)
      const foreign = foreignInputProblem(raw)
      if (foreign) return {code: 10506, msg: `${foreign.field}: ${foreign.message}`, data: null, reqId: foreign.field === 'reqId' ? '' : reqId}
      for (const field of ['mchNo', 'reqId', 'reqTime', 'sign']) {
        if (typeof raw[field] !== 'string' || raw[field] === '') fail(10506, `${field}: is required`)
      }
      for (const [field, max] of BOUNDS) if ((raw[field] as string).length > max) fail(10506, `${field}: must be at most ${max} characters`)
      const merchant = store.get<Merchant>('merchants', raw.mchNo as string)
      if (!merchant) return fail(20023, `merchant ${raw.mchNo as string} is unknown or disabled`)
      const appId = typeof raw.appId === 'string' && raw.appId !== '' ? raw.appId : merchant.defaultAppId
      if (!merchant.appIds.includes(appId)) fail(20023, `app ${appId} is not configured for merchant ${merchant.mchNo}`)
      // over every field received, exactly as sent: the same rule as `unipay verify --request`
      const serverString = canonicalString(raw)
      if (note) note.merchant = merchant.mchNo
      // lenient decoding reads many spellings as one signature: only the canonical one is a signature here
      const notCanonical = canonicalBase64Problem(raw.sign as string)
      if (notCanonical) fail(20052, `sign: not canonical Base64: it ${notCanonical}`)
      if (!verifyString(serverString, raw.sign as string, merchantKey(merchant))) {
        if (note) note.signature = diagnoseReceivedSignature(raw, serverString, raw.sign as string, merchantKey(merchant), rawText)
        fail(20052, `signature verification failed; server string to sign: ${serverString}`)
      }
      replay?.check(merchant.mchNo, reqId, typeof raw.nonceStr === 'string' ? raw.nonceStr : undefined, raw.reqTime as string)
      // only once the signature holds: absent values out, undeclared fields ignored, defaults filled
      const fields = route.endpoint === endpoints.alloc && merchant.allocAmountUnit === 'cents' ? allocFieldsInCents : route.endpoint.fields
      const received = dropAbsent(fields, toPlain(raw)) as Record<string, unknown>
      const plain: Record<string, unknown> = {...route.endpoint.defaults}
      for (const field of declaredFields(route.endpoint)) if (received[field] !== undefined) plain[field] = received[field]
      if (route.endpoint === endpoints.pay) {
        inferMethodFromCapability(plain)
        authSessions.fillStoredOpenId(merchant.mchNo, appId, plain)
      }
      if (route.endpoint === endpoints.transfer) {
        const ignored = ignoredTransferFields(plain)
        if (note && ignored.length > 0) note.notes = ignored
      }
      if (typeof plain.method === 'string' && !(PAY_METHODS as readonly string[]).includes(plain.method)) {
        fail(20012, `method ${plain.method} is unknown`)
      }
      // the endpoint's own check (fast rules where it has them), unless a merchant setting changes the schema
      const problems = fields === route.endpoint.fields ? route.endpoint.check(plain) : checkFields(fields, plain)
      if (problems.length > 0) fail(10506, problems.map((p) => `${p.field}: ${p.message}`).join('; '))
      if (typeof plain.channelMchNo === 'string' && plain.channelMchNo !== '') {
        const configured = merchant.channelMchNos ?? SANDBOX_CHANNEL_MCH_NOS
        if (!configured.includes(plain.channelMchNo)) {
          fail(20023, `channelMchNo ${plain.channelMchNo} is not configured for merchant ${merchant.mchNo} (its channel merchants: ${configured.join(', ')})`)
        }
      }
      refuseOwnUrls(plain, deps.publicUrl())
      const data = route.handle({body: plain, received: raw, merchant, appId, clientIp: typeof plain.clientIp === 'string' ? plain.clientIp : undefined})
      return {code: 0, msg: 'success', data, reqId}
    } catch (error) {
      if (error instanceof PlatformFailure) return {code: error.code, msg: error.message, data: null, reqId}
      throw error
    }
  }

  return {
    /** Whether the path is a signed API endpoint (only POST reaches them). */
    serves: (path: string) => routes.has(path),

    /** Answers a signed call, or strikes it with the next armed fault. */
    async handle(path: string, rawText: string, note: RequestNote, res: ServerResponse, send: Send): Promise<void> {
      const fault = faults.take(path, 'signed')
      if (!fault) return send(200, await call(path, rawText, note))
      await strike(fault, async () => ({status: 200, headers: {'content-type': 'application/json; charset=utf-8'}, body: await call(path, rawText)}), res)
    },

    /** Drops the cached public key of a merchant whose registration changed. */
    forgetKey(mchNo: string): void {
      merchantKeys.delete(mchNo)
    },
  }
}

export type SignedApi = ReturnType<typeof createSignedApi>
