// The compatibility module (`/epay/*`, spec "Compatibility module", protocol-notes section 7):
// GET query or form POST, V1 signed with the merchant's MD5 key, V2 with its RSA key (plus a
// timestamp window), `money` in yuan converted exactly. Orders are made by the PayService, so
// the normal queries see them too; refunds go through the RefundService. Answers carry the
// spec's code/msg/data and the flat fields epay clients read; V2 answers are signed with the
// platform key. A paid order sends the `easy_pay` GET notification, and a small payer page
// (the target of `submit`) lets the sandbox's payer pay.
import {randomBytes, timingSafeEqual, type KeyObject} from 'node:crypto'
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {canonicalString} from '../protocol/canonical.js'
import {EPAY_DEVICES, EPAY_TIMESTAMP_WINDOW_SECONDS, EPAY_V1_PATHS, EPAY_V2_PREFIX, epayMoneyToCents, isWallet, PAY_TYPE_OF_BODY, readTypeAndMethod} from '../protocol/epay-api.js'
import type {EpayMode, EpayVersion, EpayWallet} from '../protocol/epay-api.js'
import {epayRsaStrings, epayStringToSign, md5Matches, signMd5, signRsa, type Md5KeyForm} from '../protocol/epay.js'
import {PAY_METHODS} from '../protocol/enums.js'
import {endpoints} from '../protocol/endpoints.js'
import {loadPublicKey} from '../protocol/keys.js'
import {centsToYuan, MoneyFormatError} from '../protocol/money.js'
import {checkFields, OPENID_METHODS, type FieldProblem, type PayRequest, type RefundRequest} from '../protocol/schemas.js'
import {verifyString} from '../protocol/signature.js'
import {formatGmt8} from '../protocol/time.js'
import {fail, PlatformFailure} from './errors.js'
import type {Notifier} from './notifier.js'
import {payOrderResult, type PayOrder, type PayService} from './pay.js'
import {refundOrderResult, refundResult, type RefundOrder, type RefundService} from './refund.js'
import type {ReplayGuard} from './replay.js'
import type {Store} from './store.js'
import {escapeHtml, pageHeaders} from './html.js'

/** A merchant's MD5 key (V1) and where it goes in the string (protocol-notes: direct by default). */
export interface EpaySecret {
  md5Key: string
  md5KeyForm?: Md5KeyForm
}

export interface EpayDeps {
  store: Store
  pay: PayService
  refunds: RefundService
  notifier: Notifier
  platformKey: KeyObject
  now: () => Date
  /** The real time, which a client's timestamp is compared with (the sandbox clock may be moved ahead). */
  clientNow?: () => Date
  publicUrl: () => string
  /** MD5 keys by merchant number; a merchant without one cannot use V1. */
  md5Keys: (mchNo: string) => EpaySecret | undefined
  /** The V2 timestamp window (on by default, switched off with the replay checks). */
  timestampChecks?: boolean
  /** Refuses a V2 request whose signature was already received (absent: replay checks off). */
  replay?: ReplayGuard
}

export interface EpayAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/** What the module keeps about an order it made, beside the pay order. */
export interface EpayOrder {
  orderNo: string
  mchNo: string
  version: EpayVersion
  outTradeNo: string
  wallet?: string
  mode?: EpayMode
  notifyUrl?: string
  returnUrl?: string
  param?: string
  /** The business parameters, to tell a repeat from a reuse with other parameters. */
  digest: string
}

interface StoredMerchant {
  mchNo: string
  defaultAppId: string
  publicKeyPem: string
}

type Params = Record<string, string>

const COLLECTION = 'epayOrders'
const JSON_TYPE = 'application/json; charset=utf-8'
const PAGE_PREFIX = '/epay/pay/'

/**
 * Whether the same signed request may simply be answered again: reads (a client polling twice
 * in one second signs the same bytes), and calls whose idempotency key makes a repeat return
 * the first result. Anything else repeated with the same signature is a replay.
 */
function repeatable(action: string, params: Params): boolean {
  if (action === 'query' || action === 'refund_query' || action === 'create' || action === 'submit') return true
  return action === 'refund' && Boolean(params.out_refund_no)
}

/** The merchant's MD5 key for V1, created on first start in the keys folder (0600) like its RSA keys. */
export function ensureMd5Key(dir: string, name: string): {file: string; md5Key: string} {
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const file = join(dir, `${name}-md5.key`)
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(16).toString('hex')}\n`, {mode: 0o600})
    chmodSync(file, 0o600)
  }
  return {file, md5Key: readFileSync(file, 'utf8').trim()}
}

/** Names of the pay and refund fields as the module's parameters, for messages. */
const PARAM_NAMES: Record<string, string> = {
  mchNo: 'pid',
  bizOrderNo: 'out_trade_no',
  title: 'name',
  amount: 'money',
  notifyUrl: 'notify_url',
  returnUrl: 'return_url',
  attach: 'param',
  openId: 'sub_openid',
  method: 'type/method',
  bizRefundNo: 'out_refund_no',
}

/** Field problems in the epay client's words: its parameter names, limits on money in yuan. */
const describeProblems = (problems: FieldProblem[]) =>
  problems
    .map((p) => {
      const message = p.field === 'amount' ? `${p.message.replace(/\d+$/, (cents) => centsToYuan(Number(cents)))} (yuan)` : p.message
      return `${PARAM_NAMES[p.field] ?? p.field}: ${message}`
    })
    .join('; ')

/** A refund refused by the RefundService, reworded with epay names and yuan. */
function epayRefundFailure(error: PlatformFailure, order: PayOrder, amount: number, outRefundNo: string | undefined): never {
  switch (error.code) {
    case 20060:
      return fail(20060, `money ${centsToYuan(amount)} is over what can still be refunded of trade_no ${order.orderNo} (${centsToYuan(order.refundableBalance)} yuan)`)
    case 10507:
      return fail(10507, `out_refund_no ${outRefundNo ?? ''} was already used for this order with different parameters`)
    case 20044:
      return fail(20044, `trade_no ${order.orderNo} is not paid (${order.status}): only a paid order can be refunded`)
  }
  throw error
}

const esc = escapeHtml

const PAGE_HEADERS = pageHeaders("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'")

export function createEpay(deps: EpayDeps) {
  const {store, pay, refunds, notifier, platformKey, now} = deps
  const publicKeys = new Map<string, KeyObject>()

  const nowSeconds = () => Math.floor(now().getTime() / 1000)
  const pageUrl = (orderNo: string) => `${deps.publicUrl()}${PAGE_PREFIX}${encodeURIComponent(orderNo)}`
  const json = (status: number, body: unknown): EpayAnswer => ({status, headers: {'content-type': JSON_TYPE}, body: JSON.stringify(body)})

  // A paid order made here tells its notify_url by GET (pay success only); never a system POST.
  pay.listeners.push((order, event) => {
    if (event !== 'pay.success') return
    const record = store.get<EpayOrder>(COLLECTION, order.orderNo)
    if (!record?.notifyUrl) return
    const params = notificationParams(record, order)
    if (params) notifier.emitEasyPay({event, url: record.notifyUrl, mchNo: order.mchNo, params, signedEachAttempt: record.version === 'v2'})
  })

  /** The signed `easy_pay` parameters of a paid order (also what return_url gets). */
  function notificationParams(record: EpayOrder, order: PayOrder): Params | undefined {
    const params: Params = {
      pid: order.mchNo,
      trade_no: order.orderNo,
      out_trade_no: order.bizOrderNo,
      type: record.wallet ?? order.channel,
      name: order.title,
      money: centsToYuan(order.amount),
      trade_status: 'TRADE_SUCCESS',
    }
    if (record.param) params.param = record.param
    if (record.version === 'v1') {
      const secret = deps.md5Keys(order.mchNo)
      if (!secret) return undefined
      return {...params, sign: signMd5(params, secret.md5Key, secret.md5KeyForm), sign_type: 'MD5'}
    }
    if (order.outOrderNo) params.api_trade_no = order.outOrderNo
    if (order.buyerId) params.buyer = order.buyerId
    params.timestamp = String(nowSeconds())
    return {...params, sign: signRsa(params, platformKey), sign_type: 'RSA'}
  }

  function merchantOf(params: Params): StoredMerchant {
    const pid = params.pid
    if (!pid) fail(10506, 'pid: is required (the merchant number)')
    return store.get<StoredMerchant>('merchants', pid) ?? fail(20023, `merchant ${pid} is unknown or disabled`)
  }

  function publicKeyOf(merchant: StoredMerchant): KeyObject {
    let key = publicKeys.get(merchant.publicKeyPem)
    if (!key) publicKeys.set(merchant.publicKeyPem, (key = loadPublicKey(merchant.publicKeyPem)))
    return key
  }

  /** V1: MD5 only; the key appended as the merchant is set up (directly unless it chose `&key=`). */
  function checkV1(params: Params): StoredMerchant {
    const merchant = merchantOf(params)
    const signType = params.sign_type
    if (signType && signType.toUpperCase() !== 'MD5') {
      fail(10506, `sign_type: V1 accepts MD5 only, not "${signType}"; RSA requests go to V2 at ${EPAY_V2_PREFIX}`)
    }
    const secret = deps.md5Keys(merchant.mchNo) ?? fail(20023, `merchant ${merchant.mchNo} has no MD5 key: V1 is not enabled for it; use V2 (RSA)`)
    if (!params.sign) fail(10506, 'sign: is required')
    const text = epayStringToSign(params)
    const form = secret.md5KeyForm ?? 'direct'
    if (!md5Matches(text, params.sign, secret.md5Key, form)) {
      const other: Md5KeyForm = form === 'direct' ? 'param' : 'direct'
      if (md5Matches(text, params.sign, secret.md5Key, other)) {
        fail(20052, form === 'direct'
          ? 'signature verification failed: the sign appends the MD5 key as `&key=KEY`, but this merchant appends it directly (no `&key=`)'
          : 'signature verification failed: the sign appends the MD5 key directly, but this merchant appends it as `&key=KEY`')
      }
      const shown = form === 'direct' ? `${text}{MD5 key}` : `${text}&key={MD5 key}`
      fail(20052, `signature verification failed (MD5); server string to sign: ${shown}`)
    }
    return merchant
  }

  /** V2: RSA only, signed by the merchant key, timestamp within the window, not a replay. */
  function checkV2(params: Params, action: string): StoredMerchant {
    const merchant = merchantOf(params)
    // The spec makes sign_type required, and the V2 SDK always sends it
    const signType = params.sign_type
    if (!signType) fail(10506, 'sign_type: is required: send sign_type=RSA')
    if (signType.toUpperCase() === 'MD5') {
      fail(10506, `sign_type: V2 refuses MD5: sign with RSA (SHA256withRSA, the merchant private key) and send sign_type=RSA; MD5 is V1, at /epay/api/v1/`)
    }
    if (signType !== 'RSA') fail(10506, `sign_type: must be RSA, not "${signType}"`)
    if (!params.sign) fail(10506, 'sign: is required')
    const timestamp = params.timestamp
    if (!timestamp) fail(10506, 'timestamp: is required (Unix seconds, signed)')
    if (!/^\d{1,12}$/.test(timestamp)) fail(10506, `timestamp: "${timestamp}" is not Unix seconds`)
    // the V2 selection (whitespace-only values dropped), or the one that keeps them
    const [text, ...alsoAccepted] = epayRsaStrings(params)
    const key = publicKeyOf(merchant)
    if (![text, ...alsoAccepted].some((candidate) => verifyString(candidate, params.sign, key))) {
      fail(20052, `signature verification failed (RSA, the merchant public key); server string to sign: ${text}`)
    }
    const offBy = Number(timestamp) - Math.floor((deps.clientNow ?? now)().getTime() / 1000)
    if (deps.timestampChecks !== false && Math.abs(offBy) > EPAY_TIMESTAMP_WINDOW_SECONDS) {
      fail(10410, `timestamp ${timestamp} is ${Math.abs(offBy)} s ${offBy < 0 ? 'behind' : 'ahead of'} the platform clock (at most ${EPAY_TIMESTAMP_WINDOW_SECONDS} s allowed): sign a fresh request`)
    }
    if (!repeatable(action, params)) deps.replay?.checkSignature(merchant.mchNo, params.sign, Number(timestamp))
    return merchant
  }

  function moneyOf(params: Params, field = 'money'): number {
    const value = params[field]
    if (value === undefined || value === '') return fail(10506, `${field}: is required (yuan, e.g. 1.00)`)
    try {
      return epayMoneyToCents(value)
    } catch (error) {
      if (error instanceof MoneyFormatError) return fail(10506, `${field}: ${error.message}`)
      throw error
    }
  }

  /** The order a request names: trade_no (the platform order number) wins over out_trade_no. */
  function orderOf(mchNo: string, params: Params): PayOrder {
    if (params.trade_no) return pay.find(mchNo, {orderNo: params.trade_no})
    if (params.out_trade_no) return pay.find(mchNo, {bizOrderNo: params.out_trade_no})
    return fail(10506, 'out_trade_no: one of out_trade_no / trade_no is required')
  }

  function create(version: EpayVersion, params: Params, merchant: StoredMerchant): PayOrder {
    let mode: EpayMode | undefined
    let wallet: EpayWallet | undefined
    if (version === 'v2') {
      const read = readTypeAndMethod(params)
      if (read.problem) fail(10506, `${read.problem.field}: ${read.problem.message}`)
      mode = read.mode
      wallet = read.wallet
    } else if (params.type) {
      const type = params.type
      wallet = isWallet(type) ? type : fail(10506, `type: "${type}" is not a wallet (walletA, walletB, walletC, walletD)`)
    }
    const device = params.device
    if (device && !(EPAY_DEVICES as readonly string[]).includes(device)) fail(10506, `device: must be ${EPAY_DEVICES.join(' or ')}`)
    const amount = moneyOf(params)
    const method = methodFor(mode, wallet, device)
    const fields: Record<string, unknown> = {
      mchNo: merchant.mchNo,
      appId: merchant.defaultAppId,
      bizOrderNo: params.out_trade_no,
      title: params.name,
      amount,
      method,
      returnUrl: params.return_url || undefined,
      attach: params.param || undefined,
      openId: params.sub_openid || undefined,
    }
    for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key]
    if (OPENID_METHODS.includes(method) && !fields.openId) fail(10506, `sub_openid: is required for ${method}`)
    const problems = checkFields(endpoints.pay.fields, {...fields, notifyUrl: params.notify_url || undefined, reqId: 'epay', reqTime: formatGmt8(now())})
    if (problems.length > 0) fail(10506, describeProblems(problems))
    const digest = canonicalString({version, mode, wallet, device, amount, method, name: params.name, notify_url: params.notify_url, return_url: params.return_url, param: params.param, sub_openid: params.sub_openid})
    let existing: PayOrder | undefined
    try {
      existing = pay.find(merchant.mchNo, {bizOrderNo: params.out_trade_no})
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
    }
    if (existing) {
      const record = store.get<EpayOrder>(COLLECTION, existing.orderNo)
      if (record?.digest !== digest) fail(10507, `out_trade_no ${params.out_trade_no} was already used with different parameters`)
      return existing
    }
    // notify_url stays out of the pay order: this module sends its own (easy_pay) notification.
    const order = pay.create(fields as PayRequest & Record<string, unknown>)
    const record: EpayOrder = {
      orderNo: order.orderNo,
      mchNo: order.mchNo,
      version,
      outTradeNo: order.bizOrderNo,
      wallet,
      mode,
      notifyUrl: params.notify_url || undefined,
      returnUrl: params.return_url || undefined,
      param: params.param || undefined,
      digest,
    }
    store.put(COLLECTION, order.orderNo, record)
    return order
  }

  function createdFields(order: PayOrder, record: EpayOrder | undefined) {
    const flat: Record<string, unknown> = {
      trade_no: order.orderNo,
      out_trade_no: order.bizOrderNo,
      type: record?.wallet ?? order.channel,
      money: centsToYuan(order.amount),
      status: order.status,
      pay_type: PAY_TYPE_OF_BODY[order.payBodyType] ?? order.payBodyType,
      pay_info: order.payBody,
      payurl: pageUrl(order.orderNo),
    }
    if (order.payBodyType === 'qr_code') flat.qrcode = order.payBody
    const {orderId, orderNo, payBody, payBodyType} = order
    return {data: {orderId, orderNo, payBody, payBodyType}, flat}
  }

  function orderFields(order: PayOrder) {
    const record = store.get<EpayOrder>(COLLECTION, order.orderNo)
    const flat: Record<string, unknown> = {
      trade_no: order.orderNo,
      out_trade_no: order.bizOrderNo,
      api_trade_no: order.outOrderNo ?? '',
      type: record?.wallet ?? order.channel,
      pid: order.mchNo,
      addtime: formatGmt8(new Date(order.createdAt)),
      endtime: order.payTime ?? '',
      name: order.title,
      money: centsToYuan(order.amount),
      status: order.status === 'success' ? 1 : 0,
      param: order.attach ?? '',
      buyer: order.buyerId ?? '',
    }
    // what refunds took (accepted ones reserve their amount), once anything was refunded
    if (order.refundableBalance < order.amount) flat.refundmoney = centsToYuan(order.amount - order.refundableBalance)
    const {orderNo, bizOrderNo, status, amount, realAmount, payTime, refundStatus, refundableBalance} = payOrderResult(order)
    return {data: {orderNo, bizOrderNo, status, amount, realAmount, payTime, refundStatus, refundableBalance}, flat}
  }

  function refundFields(refund: RefundOrder, full: boolean) {
    const flat: Record<string, unknown> = {
      refund_no: refund.refundNo,
      out_refund_no: refund.bizRefundNo,
      trade_no: refund.orderNo,
      out_trade_no: refund.bizOrderNo,
      money: centsToYuan(refund.amount),
      // what the merchant's balance gives up: the whole refund (the sandbox keeps no fee)
      reducemoney: centsToYuan(refund.amount),
      status: refund.status,
    }
    if (full) {
      // refundquery: numeric, never a word, since clients test `status == 1`
      flat.status = refund.status === 'success' ? 1 : 0
      flat.endtime = refund.finishTime ?? ''
    }
    return {data: full ? refundOrderResult(refund) : refundResult(refund), flat}
  }

  function refund(params: Params, merchant: StoredMerchant) {
    const order = orderOf(merchant.mchNo, params)
    const amount = moneyOf(params)
    const request: Record<string, unknown> = {mchNo: merchant.mchNo, bizOrderNo: order.bizOrderNo, amount, reqId: 'epay', reqTime: formatGmt8(now())}
    if (params.out_refund_no) request.bizRefundNo = params.out_refund_no
    const problems = checkFields(endpoints.refund.fields, request)
    if (problems.length > 0) fail(10506, describeProblems(problems))
    try {
      return refundFields(refunds.create(request as RefundRequest), false)
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
      return epayRefundFailure(error, order, amount, params.out_refund_no)
    }
  }

  function refundQuery(params: Params, merchant: StoredMerchant) {
    if (!params.refund_no && !params.out_refund_no) fail(10506, 'out_refund_no: one of out_refund_no / refund_no is required')
    let found: RefundOrder
    try {
      found = refunds.find(merchant.mchNo, params.refund_no ? {refundNo: params.refund_no} : {bizRefundNo: params.out_refund_no})
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
      return fail(error.code, params.refund_no ? `no refund with refund_no ${params.refund_no}` : `no refund with out_refund_no ${params.out_refund_no}`)
    }
    return refundFields(found, true)
  }

  function close(params: Params, merchant: StoredMerchant) {
    const order = orderOf(merchant.mchNo, params)
    const closed = pay.close(merchant.mchNo, {orderNo: order.orderNo}, false)
    return {data: {orderNo: closed.orderNo, bizOrderNo: closed.bizOrderNo, status: closed.status}, flat: {trade_no: closed.orderNo, out_trade_no: closed.bizOrderNo, status: closed.status}}
  }

  /** V1 api.php?act=order: the plain `key` parameter is compared with the MD5 key. */
  function v1Query(params: Params) {
    const merchant = merchantOf(params)
    const act = params.act
    if (act !== 'order') fail(10506, `act: ${act ? `"${act}" is not supported` : 'is required'}; use act=order`)
    const secret = deps.md5Keys(merchant.mchNo) ?? fail(20023, `merchant ${merchant.mchNo} has no MD5 key: V1 is not enabled for it`)
    if (!params.key) fail(10506, 'key: is required (the merchant MD5 key)')
    const given = Buffer.from(params.key, 'utf8')
    const expected = Buffer.from(secret.md5Key, 'utf8')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) fail(20052, 'key: does not match the merchant\'s MD5 key')
    return orderFields(orderOf(merchant.mchNo, params))
  }

  /** code/msg/data plus the flat fields; V2 adds timestamp, sign_type=RSA and sign over the flat scalars. */
  function answer(version: EpayVersion, code: number, msg: string, result?: {data: unknown; flat: Record<string, unknown>}): EpayAnswer {
    const body: Record<string, unknown> = {code, msg, ...(result?.flat ?? {}), data: result?.data ?? null}
    if (version === 'v2') {
      body.timestamp = String(nowSeconds())
      body.sign_type = 'RSA'
      body.sign = signRsa(JSON.parse(JSON.stringify(body)), platformKey)
    }
    return json(200, body)
  }

  function api(version: EpayVersion, action: string, params: Params): EpayAnswer {
    try {
      if (version === 'v1' && action === 'query') return answer(version, 0, 'success', v1Query(params))
      const merchant = version === 'v1' ? checkV1(params) : checkV2(params, action)
      switch (action) {
        case 'submit': {
          const order = create(version, params, merchant)
          return {status: 302, headers: {location: pageUrl(order.orderNo), 'cache-control': 'no-store'}, body: ''}
        }
        case 'create': {
          const order = create(version, params, merchant)
          return answer(version, 0, 'success', createdFields(order, store.get<EpayOrder>(COLLECTION, order.orderNo)))
        }
        case 'query':
          return answer(version, 0, 'success', orderFields(orderOf(merchant.mchNo, params)))
        case 'refund':
          return answer(version, 0, 'success', refund(params, merchant))
        case 'refund_query':
          return answer(version, 0, 'success', refundQuery(params, merchant))
        case 'close':
          return answer(version, 0, 'success', close(params, merchant))
      }
      return fail(10404, `no route ${action}`)
    } catch (error) {
      if (error instanceof PlatformFailure) return answer(version, error.code, error.message)
      throw error
    }
  }

  /** The payer's page: what `submit` redirects to. */
  function page(method: string, orderNo: string, rawText: string): EpayAnswer {
    const order = store.get<PayOrder>('payOrders', orderNo)
    const record = store.get<EpayOrder>(COLLECTION, orderNo)
    if (!order || !record) return html(404, '未找到 · Not found', '<p class="error" id="error">订单不存在 · Order not found</p>')
    let problem: string | undefined
    if (method === 'POST') {
      try {
        const wallet = new URLSearchParams(rawText).get('wallet') ?? undefined
        if (wallet !== undefined && !isWallet(wallet)) fail(10506, 'wallet: not a wallet')
        pay.payerPays(order.orderNo, 'success', wallet)
        return {status: 303, headers: {location: `${PAGE_PREFIX}${encodeURIComponent(orderNo)}`, 'cache-control': 'no-store'}, body: ''}
      } catch (error) {
        if (!(error instanceof PlatformFailure)) throw error
        problem = error.message
      }
    } else if (method !== 'GET' && method !== 'HEAD') {
      return {...html(405, 'Method not allowed', '<p class="error">GET or POST</p>'), headers: {...PAGE_HEADERS, allow: 'GET, POST'}}
    }
    const current = pay.find(order.mchNo, {orderNo})
    const open = current.status === 'wait' || current.status === 'progress'
    const action = `${PAGE_PREFIX}${encodeURIComponent(orderNo)}`
    const buttons = current.channel === 'aggregate'
      ? ['walletA', 'walletB', 'walletC', 'walletD'].map((w) => `<button name="wallet" value="${w}" id="pay-${w}">${w} 支付 · Pay with ${w}</button>`).join('')
      : `<button id="pay">确认支付 · Pay ¥${esc(centsToYuan(current.amount))}</button>`
    let back = ''
    if (current.status === 'success' && record.returnUrl) {
      const params = notificationParams(record, current)
      if (params) {
        const target = new URL(record.returnUrl)
        for (const [key, value] of Object.entries(params)) target.searchParams.append(key, value)
        back = `<p><a id="return" href="${esc(target.toString())}">返回商户 · Back to the merchant</a></p>`
      }
    }
    const main = `<p class="brand">沙箱支付 · Sandbox payment</p>
<h1 id="title">${esc(current.title)}</h1>
<p class="amount" id="amount">¥${esc(centsToYuan(current.amount))}</p>
<dl><dt>订单号 Order</dt><dd id="order-no">${esc(current.orderNo)}</dd><dt>商户订单号 Merchant order</dt><dd>${esc(current.bizOrderNo)}</dd><dt>商户 Merchant</dt><dd>${esc(current.mchNo)}</dd></dl>
<p id="state" data-status="${esc(current.status)}">${esc(current.status)}</p>
${problem ? `<p class="error" id="error">${esc(problem)}</p>` : ''}
${open ? `<form method="post" action="${esc(action)}">${buttons}</form>` : ''}${back}`
    return html(problem ? 409 : 200, `支付 · ${current.title}`, main)
  }

  return {
    /** Answers every path under /epay/. */
    handle(method: string, url: URL, rawText: string, contentType: string | undefined): EpayAnswer {
      try {
        if (url.pathname.startsWith(PAGE_PREFIX)) return page(method, decodeURIComponent(url.pathname.slice(PAGE_PREFIX.length)), rawText)
        const route = routeOf(url.pathname)
        if (!route) return json(404, {code: 10404, msg: `no route ${method} ${url.pathname}`, data: null})
        if (method !== 'GET' && method !== 'POST') {
          return {...json(405, {code: 10404, msg: `${method} is not allowed: use GET (query) or POST (form)`, data: null}), headers: {'content-type': JSON_TYPE, allow: 'GET, POST'}}
        }
        if (method === 'POST' && /json/i.test(contentType ?? '')) {
          return answer(route.version, 10505, 'send the parameters form-encoded (application/x-www-form-urlencoded) or in the query string, not JSON')
        }
        const params: Params = Object.fromEntries(url.searchParams)
        if (method === 'POST') Object.assign(params, Object.fromEntries(new URLSearchParams(rawText)))
        return api(route.version, route.action, params)
      } catch (error) {
        if (error instanceof URIError) return json(400, {code: 10505, msg: 'malformed path', data: null})
        throw error
      }
    },
  }
}

function routeOf(path: string): {version: EpayVersion; action: string} | undefined {
  const v1 = Object.entries(EPAY_V1_PATHS).find(([, p]) => p === path)
  if (v1) return {version: 'v1', action: v1[0]}
  if (!path.startsWith(EPAY_V2_PREFIX)) return undefined
  const name = path.slice(EPAY_V2_PREFIX.length)
  const action = name === 'refundquery' ? 'refund_query' : name
  return ['submit', 'create', 'query', 'refund', 'refund_query', 'close'].includes(action) ? {version: 'v2', action} : undefined
}

/** The pay method for a payment type and wallet: a wallet's QR (h5 on mobile), its h5, jsapi or app; none: the aggregate QR. */
function methodFor(mode: EpayMode | undefined, wallet: EpayWallet | undefined, device: string | undefined): string {
  if (!wallet) {
    if (mode === 'jsapi' || mode === 'app') fail(10506, `method: a wallet is required for type ${mode}`)
    return 'aggregate_pay_qrcode'
  }
  const kind = mode === 'jump' ? 'h5' : mode === 'jsapi' ? 'jsapi' : mode === 'app' ? 'app' : device === 'mobile' ? 'h5' : 'qr'
  const method = `${wallet}_${kind}`
  if (!(PAY_METHODS as readonly string[]).includes(method)) fail(20022, `${wallet} has no ${mode ?? 'web'} payment (method ${method} is not enabled)`)
  return method
}

function html(status: number, title: string, main: string): EpayAnswer {
  const body = `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:480px;margin:0 auto;padding:16px}.amount{font-size:32px;font-weight:600}.error{color:#c00}button{display:block;width:100%;padding:12px;margin:8px 0;font:inherit}dt{color:#666}</style></head>
<body><main>${main}</main></body></html>`
  return {status, headers: PAGE_HEADERS, body}
}
