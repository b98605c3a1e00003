// The compatibility module (`/epay/*`, spec "Compatibility module", protocol-notes section 7):
// GET query or form POST, V1 signed with the merchant's MD5 key, V2 with its RSA key (plus a
// timestamp window), `money` in yuan converted exactly. Orders are made by the PayService, so
// the normal queries see them too; refunds go through the RefundService. This file routes; the
// parts are in ./epay/, read in this order: shared, orders, v1, v2, notifications, pages.
// API paths answer JSON (V1 code 1/-1 unsigned, V2 code 0 signed); the browser paths (submit)
// answer a redirect to the payer's page, or an HTML page saying what was wrong.
import type {EpayVersion} from '../protocol/epay-api.js'
import {EPAY_V1_PATHS, EPAY_V1_PREFIX, EPAY_V2_PREFIX} from '../protocol/epay-api.js'
import {PlatformFailure} from './errors.js'
import type {CallKind} from './faults.js'
import {notifyOnPayment} from './epay/notifications.js'
import {createdFields, createOrder, orderFields, payOnlyWithWordedWallets} from './epay/orders.js'
import {errorPage, payerPage} from './epay/pages.js'
import {answer, epayContext, jsonAnswer, orderOf, PAGE_PREFIX, type EpayAnswer, type EpayContext, type EpayDeps, type Params} from './epay/shared.js'
import {checkV1, v1Query} from './epay/v1.js'
import {checkV2, close, refund, refundQuery} from './epay/v2.js'

export {MD5_KEY_PATTERN, md5KeyFiles, type Md5Keys} from './epay/md5-key.js'
export type {EpayAnswer, EpayDeps, EpayOrder, EpaySecret} from './epay/shared.js'

interface Route {
  version: EpayVersion
  action: string
}

const V2_ACTIONS = ['submit', 'create', 'query', 'refund', 'refund_query', 'close']

function routeOf(path: string): Route | undefined {
  const v1 = Object.entries(EPAY_V1_PATHS).find(([, p]) => p === path)
  if (v1) return {version: 'v1', action: v1[0]}
  if (!path.startsWith(EPAY_V2_PREFIX)) return undefined
  const name = path.slice(EPAY_V2_PREFIX.length)
  const action = name === 'refundquery' ? 'refund_query' : name
  return V2_ACTIONS.includes(action) ? {version: 'v2', action} : undefined
}

/**
 * The path as the module reads it: doubled slashes merged, as a real epay host behind a default
 * web server does (clients that add their own slash to a base ending in one send `v1//mapi.php`).
 */
const modulePath = (pathname: string) => pathname.replace(/\/{2,}/g, '/')

/** The call a path names, in the module's reading, and what answers it (fault injection asks); undefined when none does. */
export function epayCallOf(pathname: string): {path: string; kind: CallKind} | undefined {
  const path = modulePath(pathname)
  const route = routeOf(path)
  if (!route) return undefined
  return {path, kind: route.action === 'submit' ? 'browser' : route.version === 'v1' ? 'unsigned' : 'signed'}
}

/** V1 clients test `code == 1` and read -1 as a failure: under V1's prefix every failure is -1. */
const isV1Path = (path: string) => `${path}/`.startsWith(EPAY_V1_PREFIX)

function noRoute(method: string, path: string): string {
  return isV1Path(path) ? `no V1 path ${path}: V1 answers at ${Object.values(EPAY_V1_PATHS).join(', ')}` : `no route ${method} ${path}`
}

/** A call whose parameters were read: checked, carried out, answered (a failure is thrown as a PlatformFailure). */
function carryOut(ctx: EpayContext, {version, action}: Route, params: Params): EpayAnswer {
  if (version === 'v1' && action === 'query') return answer(ctx, version, undefined, v1Query(ctx, params))
  const merchant = version === 'v1' ? checkV1(ctx, params) : checkV2(ctx, params, action)
  switch (action) {
    case 'submit': {
      const order = createOrder(ctx, version, params, merchant, true)
      return {status: 302, headers: {location: ctx.pageUrl(order.orderNo), 'cache-control': 'no-store'}, body: ''}
    }
    case 'create':
      return answer(ctx, version, undefined, createdFields(ctx, createOrder(ctx, version, params, merchant)))
    case 'query':
      return answer(ctx, version, undefined, orderFields(ctx, orderOf(ctx, merchant.mchNo, params)))
    case 'refund':
      return answer(ctx, version, undefined, refund(ctx, params, merchant))
    case 'refund_query':
      return answer(ctx, version, undefined, refundQuery(ctx, params, merchant))
    case 'close':
      return answer(ctx, version, undefined, close(ctx, params, merchant))
  }
  return jsonAnswer(404, {code: 10404, msg: `no route ${action}`, data: null})
}

export function createEpay(deps: EpayDeps) {
  const ctx = epayContext(deps)
  notifyOnPayment(ctx)
  payOnlyWithWordedWallets(ctx)

  return {
    /** Answers every path under /epay/; a browser path's refusal (an HTML page) carries its outcome for the request log. */
    handle(method: string, url: URL, rawText: string, contentType: string | undefined): EpayAnswer {
      const path = modulePath(url.pathname)
      try {
        if (path.startsWith(PAGE_PREFIX)) return payerPage(ctx, method, decodeURIComponent(path.slice(PAGE_PREFIX.length)), rawText)
        const route = routeOf(path)
        if (!route) return jsonAnswer(404, {code: isV1Path(path) ? -1 : 10404, msg: noRoute(method, path), data: null})
        // submit is where a shop sends its payer's browser: a person reads the refusal, and the
        // log says what the API path's answer would (V1 fails with -1)
        const browser = route.action === 'submit'
        const page = (code: number, message: string, status?: number, headers?: Record<string, string>): EpayAnswer => ({
          ...errorPage(message, status, headers),
          outcome: {code: String(route.version === 'v1' ? -1 : code), message},
        })
        const refuse = (code: number, message: string) => (browser ? page(code, message) : answer(ctx, route.version, {code, message}))
        if (method !== 'GET' && method !== 'POST') {
          const message = `${method} is not allowed: use GET (query) or POST (form)`
          return browser ? page(10404, message, 405, {allow: 'GET, POST'}) : jsonAnswer(405, {code: route.version === 'v1' ? -1 : 10404, msg: message, data: null}, {allow: 'GET, POST'})
        }
        if (method === 'POST' && /json/i.test(contentType ?? '')) {
          return refuse(10505, 'send the parameters form-encoded (application/x-www-form-urlencoded) or in the query string, not JSON')
        }
        const params: Params = Object.fromEntries(url.searchParams)
        if (method === 'POST') Object.assign(params, Object.fromEntries(new URLSearchParams(rawText)))
        try {
          return carryOut(ctx, route, params)
        } catch (error) {
          if (error instanceof PlatformFailure) return refuse(error.code, error.message)
          throw error
        }
      } catch (error) {
        if (error instanceof URIError) return jsonAnswer(400, {code: 10505, msg: 'malformed path', data: null})
        throw error
      }
    },
  }
}
