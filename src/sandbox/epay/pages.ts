// What the module shows a person: the payer's page (where `submit` sends the browser; for an
// order without a wallet it is the cashier, where the payer picks one) and the small error page
// a browser path answers instead of raw JSON (protocol-notes section 7). Every value is escaped.
import {isWallet} from '../../protocol/epay-api.js'
import {centsToYuan} from '../../protocol/money.js'
import {fail, PlatformFailure} from '../errors.js'
import {escapeHtml as esc, pageHeaders} from '../html.js'
import type {PayOrder} from '../pay.js'
import {returnLink} from './notifications.js'
import {PAGE_PREFIX, PAYER_WALLETS, WORD_OF_WALLET, type EpayAnswer, type EpayContext, type EpayOrder} from './shared.js'

const PAGE_HEADERS = pageHeaders("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'")

function html(status: number, title: string, main: string): EpayAnswer {
  const body = `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:480px;margin:0 auto;padding:16px}.amount{font-size:32px;font-weight:600}.error{color:#c00}button{display:block;width:100%;padding:12px;margin:8px 0;font:inherit}dt{color:#666}</style></head>
<body><main>${main}</main></body></html>`
  return {status, headers: PAGE_HEADERS, body}
}

/** A browser path's refusal: a page saying what was wrong (HTTP 400 unless given), never JSON. */
export function errorPage(message: string, status = 400, headers: Record<string, string> = {}): EpayAnswer {
  const page = html(status, '支付请求有误 · Payment request refused', `<p class="brand">沙箱支付 · Sandbox payment</p>
<h1>支付请求有误 · The payment request was refused</h1>
<p class="error" id="error">${esc(message)}</p>
<p>请返回商户网站重试 · Go back to the shop and try again.</p>`)
  return {...page, headers: {...page.headers, ...headers}}
}

/** The payer's page of an order made here: GET shows it, POST pays (the wallet picked, for an order without one). */
export function payerPage(ctx: EpayContext, method: string, orderNo: string, rawText: string): EpayAnswer {
  const order = ctx.store.get<PayOrder>('payOrders', orderNo)
  const record = ctx.record(orderNo)
  if (!order || !record) return html(404, '未找到 · Not found', '<p class="error" id="error">订单不存在 · Order not found</p>')
  let problem: PlatformFailure | undefined
  if (method === 'POST') {
    try {
      const wallet = new URLSearchParams(rawText).get('wallet') ?? undefined
      if (wallet !== undefined && !isWallet(wallet)) fail(10506, 'wallet: not a wallet')
      ctx.pay.payerPays(order.orderNo, 'success', wallet)
      return {status: 303, headers: {location: `${PAGE_PREFIX}${encodeURIComponent(orderNo)}`, 'cache-control': 'no-store'}, body: ''}
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
      problem = error
    }
  } else if (method !== 'GET' && method !== 'HEAD') {
    return {...html(405, 'Method not allowed', '<p class="error">GET or POST</p>'), headers: {...PAGE_HEADERS, allow: 'GET, POST'}}
  }
  const current = ctx.pay.find(order.mchNo, {orderNo})
  const page = html(problem ? 409 : 200, `支付 · ${current.title}`, pageMain(ctx, current, record, problem?.message))
  return problem ? {...page, outcome: {code: String(problem.code), message: problem.message}} : page
}

function pageMain(ctx: EpayContext, order: PayOrder, record: EpayOrder, problem: string | undefined): string {
  const open = order.status === 'wait' || order.status === 'progress'
  const action = `${PAGE_PREFIX}${encodeURIComponent(order.orderNo)}`
  // only the wallets the client has words for (shared.ts PAYER_WALLETS)
  const buttons = order.channel === 'aggregate'
    ? PAYER_WALLETS.map((w) => `<button name="wallet" value="${w}" id="pay-${w}">${w} 支付 · Pay with ${w} (${WORD_OF_WALLET[w]})</button>`).join('')
    : `<button id="pay">确认支付 · Pay ¥${esc(centsToYuan(order.amount))}</button>`
  const back = returnLink(ctx, record, order)
  return `<p class="brand">沙箱支付 · Sandbox payment</p>
<h1 id="title">${esc(order.title)}</h1>
<p class="amount" id="amount">¥${esc(centsToYuan(order.amount))}</p>
<dl><dt>订单号 Order</dt><dd id="order-no">${esc(order.orderNo)}</dd><dt>商户订单号 Merchant order</dt><dd>${esc(order.bizOrderNo)}</dd><dt>商户 Merchant</dt><dd>${esc(order.mchNo)}</dd></dl>
<p id="state" data-status="${esc(order.status)}">${esc(order.status)}</p>
${problem ? `<p class="error" id="error">${esc(problem)}</p>` : ''}
${open ? `<form method="post" action="${esc(action)}">${buttons}</form>` : ''}${back ? `<p><a id="return" href="${esc(back)}">返回商户 · Back to the merchant</a></p>` : ''}`
}
