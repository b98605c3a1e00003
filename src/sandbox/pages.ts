// The payer's pages, served by the sandbox: the cashier (/cashier/{orderNo}), the aggregate QR
// (/aggregate/{orderNo}, also the payBody of an auto-routed payment), the mini-program links (/cm, /am) and the authorization page
// (/auth/{queryCode}). Server-rendered for a phone, a little inline JS (the countdown), no
// external resources; every value printed is escaped, since titles come from merchants.
import {centsToYuan} from '../protocol/money.js'
import {parseGmt8} from '../protocol/time.js'
import type {AuthSession, AuthSessions} from './auth.js'
import {PlatformFailure} from './errors.js'
import {gatewayPaths, isOpen, methodsFor, type GatewayOrder, type GatewayService, type GatewayStatus, type Wallet} from './gateway.js'
import {escapeHtml, pageHeaders} from './html.js'
import type {PayOrder, PayService} from './pay.js'

interface PageAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

interface PagesDeps {
  gateway: GatewayService
  pay: PayService
  auth: AuthSessions
  now: () => Date
  publicUrl: () => string
}

/** The in-app browser of a wallet announces itself in its user agent: `WalletA/8.0`, `WalletB/10.5`... */
function walletFromUserAgent(userAgent: string): Wallet | undefined {
  const match = /\bWallet([A-D])\//i.exec(userAgent)
  return match ? (`wallet${match[1].toUpperCase()}` as Wallet) : undefined
}

const STATE_TEXT: Record<GatewayStatus, string> = {
  wait_pay: '待支付 · Waiting for payment',
  paying: '支付中 · Paying',
  paid: '支付成功 · Paid',
  failed: '支付失败 · Payment failed',
  closed: '订单已关闭 · Closed',
  expired: '订单已过期 · Expired',
}

const ERROR_STATUS: Record<number, number> = {20041: 404, 20044: 409, 10506: 400}

const esc = escapeHtml

const HEADERS = pageHeaders("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'")

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f2f3f5;color:#1d2129;font:16px/1.5 system-ui,-apple-system,"PingFang SC","WenQuanYi Zen Hei","Noto Sans CJK SC",sans-serif}
main{max-width:480px;margin:0 auto;padding:16px}
.brand{font-size:15px;color:#4e5969;margin:4px 0 12px}
.card{background:#fff;border-radius:12px;padding:16px 18px;margin-bottom:12px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
.title{font-size:17px;margin:0;word-break:break-word}
.amount{font-size:38px;font-weight:600;margin:4px 0 8px}
dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:8px 0;font-size:14px}
dt{color:#86909c}dd{margin:0;word-break:break-all}
.countdown{font-size:14px;color:#4e5969;margin:8px 0 0}
.state{font-weight:600;font-size:18px;margin:10px 0 0}
.s-paid,.s-success{color:#00a870}.s-failed,.s-closed,.s-expired{color:#e34d59}.s-paying,.s-waiting{color:#ed7b2f}
button,.button{display:block;width:100%;padding:14px;margin:10px 0 0;border:1px solid #dcdfe6;border-radius:10px;background:#fff;color:#1d2129;font:inherit;font-size:17px;text-align:left;text-decoration:none}
button small{color:#86909c;margin-left:6px}
.primary{background:#0052d9;border-color:#0052d9;color:#fff;text-align:center}
.qr svg{display:block;width:220px;height:220px;margin:0 auto}
.hint{font-size:13px;color:#86909c}
.error{color:#e34d59;font-weight:600}
code{font-size:15px;background:#f2f3f5;padding:2px 6px;border-radius:4px;word-break:break-all}
`

// Counts down from the server's remaining time (not the phone's clock) and reloads once it is
// over, so the page then shows the expired order.
const COUNTDOWN = `<script>(function(){var el=document.getElementById('countdown');if(!el)return;var end=Date.now()+Number(el.dataset.remainingMs);function p(n){return String(n).padStart(2,'0')}function tick(){var s=Math.max(0,Math.ceil((end-Date.now())/1000));el.textContent=(s>=3600?Math.floor(s/3600)+':':'')+p(Math.floor(s/60)%60)+':'+p(s%60);if(s===0){clearInterval(t);setTimeout(function(){location.reload()},1000)}}var t=setInterval(tick,1000);tick()})()</script>`

function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000))
  const p = (n: number) => String(n).padStart(2, '0')
  return `${s >= 3600 ? `${Math.floor(s / 3600)}:` : ''}${p(Math.floor(s / 60) % 60)}:${p(s % 60)}`
}

function html(status: number, title: string, main: string, options: {refreshSeconds?: number} = {}): PageAnswer {
  const refresh = options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''
  const body = `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><main>${main}</main>${main.includes('id="countdown"') ? COUNTDOWN : ''}</body></html>`
  return {status, headers: HEADERS, body}
}

const redirect = (location: string): PageAnswer => ({status: 303, headers: {location, 'cache-control': 'no-store'}, body: ''})

function notFound(what: string): PageAnswer {
  return html(404, '未找到 · Not found', `<p class="brand">沙箱支付 · Sandbox</p><section class="card"><p class="state s-closed" id="state" data-status="not_found">${esc(what)}</p><p class="hint">检查链接是否完整 · Check that the link is complete.</p></section>`)
}

function money(order: GatewayOrder): string {
  return `${order.currency === 'cny' ? '¥' : `${esc(order.currency.toUpperCase())} `}${centsToYuan(order.amount)}`
}

export function createPages(deps: PagesDeps) {
  const {gateway, pay, auth, now} = deps

  /** Title, amount, number, countdown and state: the top of every order page. */
  function orderCard(order: GatewayOrder): string {
    const expiry = parseGmt8(order.expiredTime)
    const remaining = expiry ? expiry.getTime() - now().getTime() : 0
    const countdown = isOpen(order)
      ? `<p class="countdown">剩余支付时间 · Time left <b id="countdown" data-remaining-ms="${remaining}">${formatRemaining(remaining)}</b> (${esc(order.expiredTime)})</p>`
      : ''
    return `<section class="card">
<p class="title" id="title">${esc(order.title)}</p>
<p class="amount" id="amount">${money(order)}</p>
<dl><dt>订单号 Order</dt><dd id="order-no">${esc(order.orderNo)}</dd>${order.description ? `<dt>说明 Note</dt><dd>${esc(order.description)}</dd>` : ''}<dt>商户 Merchant</dt><dd>${esc(order.mchNo)}</dd></dl>
${countdown}
<p class="state s-${order.status}" id="state" data-status="${order.status}">${STATE_TEXT[order.status]}</p>
</section>`
  }

  /** What a final order shows: how it was paid, or why it ended. */
  function outcome(order: GatewayOrder): string {
    const rows = [
      order.channel ? `<dt>钱包 Wallet</dt><dd id="channel">${esc(order.channel)}</dd><dt>方式 Method</dt><dd id="method">${esc(order.method)}</dd>` : '',
      order.payTime ? `<dt>支付时间 Paid at</dt><dd>${esc(order.payTime)}</dd>` : '',
      order.errorMsg ? `<dt>原因 Reason</dt><dd id="reason">${esc(order.errorMsg)}</dd>` : '',
    ].join('')
    const back = order.returnUrl ? `<a class="button primary" id="return" href="${esc(order.returnUrl)}">返回商户 · Back to the merchant</a>` : ''
    return `<section class="card">${rows ? `<dl>${rows}</dl>` : ''}${back}</section>`
  }

  function cashierBody(order: GatewayOrder): string {
    const paths = gatewayPaths(order)
    if (order.status === 'wait_pay') {
      const buttons = methodsFor(order)
        .map((method) => `<button name="method" value="${esc(method)}" id="method-${esc(method)}">${esc(method.split('_')[0])} 支付<small>${esc(method)}</small></button>`)
        .join('\n')
      return `<form class="card" method="post" action="${esc(paths.h5)}/pick"><p>选择支付方式 · Choose how to pay</p>${buttons}</form>`
    }
    if (order.status === 'paying') return confirmForm(order, `${paths.h5}/pay`)
    return outcome(order)
  }

  function confirmForm(order: GatewayOrder, action: string): string {
    return `<form class="card" method="post" action="${esc(action)}">
<p>已选择 · Chosen: <b id="method">${esc(order.method)}</b></p>
<p class="hint">支付方式已锁定 · The method is locked for this order.</p>
<button class="primary" id="pay">确认支付 ${money(order)} · Pay</button></form>`
  }

  async function aggregateBody(order: GatewayOrder, wallet: Wallet | undefined, h5Url: string): Promise<string> {
    const paths = gatewayPaths(order)
    if (!isOpen(order)) return outcome(order)
    if (!wallet) {
      const {default: QRCode} = await import('qrcode')
      const svg = await QRCode.toString(h5Url, {type: 'svg', errorCorrectionLevel: 'M', margin: 1})
      const paying = order.status === 'paying' ? `<p id="paying-with">正在 ${esc(order.channel)} 中支付 · Being paid in ${esc(order.channel)}</p>` : ''
      return `<section class="card qr"><div id="qr">${svg}</div>
<p>请使用 walletA、walletB、walletC 或 walletD 扫码支付 · Scan with any wallet app</p>${paying}
<p class="hint" id="hint">沙箱 Sandbox: open this page in a browser whose user agent contains WalletA/, WalletB/, WalletC/ or WalletD/ to pay as that wallet.</p></section>`
    }
    const badge = `<p class="brand" id="wallet" data-wallet="${wallet}">${wallet} 扫码支付 · Paying with ${wallet}</p>`
    const [method] = methodsFor(order, wallet)
    if (!method) return `${badge}<section class="card"><p class="error" id="error">${wallet} 不能支付此订单 · ${wallet} cannot pay this order.</p></section>`
    if (order.status === 'paying') {
      if (order.method === method) return badge + confirmForm(order, `${paths.h5}/pay`)
      return `${badge}<section class="card"><p class="error" id="error">此订单正在使用 ${esc(order.method)} 支付 · This order is being paid with ${esc(order.method)}; the method is locked.</p></section>`
    }
    return `${badge}<form class="card" method="post" action="${esc(paths.h5)}/pick"><button class="primary" id="pick">使用 ${wallet} 支付 ${money(order)} · Pay with ${wallet}</button></form>`
  }

  function miniBody(order: GatewayOrder): string {
    const paths = gatewayPaths(order)
    const name = order.gatewayType === 'cashier' ? '统一收银台小程序 · Unified cashier mini program' : '聚合支付小程序 · Aggregate payment mini program'
    return `<section class="card"><dl>
<dt>小程序 Mini program</dt><dd id="mini">${name}</dd>
<dt>启动路径 Launch path</dt><dd><code id="launch">${esc(paths.mini)}</code></dd>
<dt>订单号 Order</dt><dd>${esc(order.orderNo)}</dd></dl>
<p class="hint">小程序从启动参数的路径中取订单号 · The mini program takes the order number from the path in its launch query.</p>
<a class="button primary" id="continue" href="${esc(paths.h5)}">在浏览器中继续 · Continue in the browser</a></section>`
  }

  async function orderPage(kind: string, order: GatewayOrder, userAgent: string, error?: {status: number; message: string}): Promise<PageAnswer> {
    const errorBlock = error ? `<section class="card"><p class="error" id="error">${esc(error.message)}</p></section>` : ''
    const status = error?.status ?? 200
    if (kind === 'cashier') {
      return html(status, `收银台 · ${order.title}`, `<p class="brand">统一收银台 · Cashier</p>${orderCard(order)}${errorBlock}${cashierBody(order)}`)
    }
    if (kind === 'aggregate') {
      const wallet = walletFromUserAgent(userAgent)
      const body = await aggregateBody(order, wallet, gateway.prePayResult(order).h5Url)
      // The QR screen (a shop counter's display) follows the payment made on the phone.
      const refreshSeconds = !wallet && isOpen(order) ? 3 : undefined
      return html(status, `聚合支付 · ${order.title}`, `<p class="brand">聚合支付 · Aggregate QR</p>${orderCard(order)}${errorBlock}${body}`, {refreshSeconds})
    }
    return html(status, `小程序 · ${order.title}`, `<p class="brand">小程序链接 · Mini-program link</p>${orderCard(order)}${miniBody(order)}`)
  }

  /**
   * The aggregate QR of an auto-routed payment (pay without method): scanned in a wallet, the
   * payer pays in that wallet; on a counter's screen, the QR, following the payment.
   */
  async function paymentQrPage(order: PayOrder, userAgent: string, error?: {status: number; message: string}): Promise<PageAnswer> {
    const wallet = walletFromUserAgent(userAgent)
    const open = order.status === 'wait' || order.status === 'progress'
    const path = `/aggregate/${encodeURIComponent(order.orderNo)}`
    const card = `<section class="card"><p class="title" id="title">${esc(order.title)}</p>
<p class="amount" id="amount">${order.currency === 'cny' ? '¥' : `${esc(order.currency.toUpperCase())} `}${centsToYuan(order.amount)}</p>
<dl><dt>订单号 Order</dt><dd id="order-no">${esc(order.orderNo)}</dd><dt>商户 Merchant</dt><dd>${esc(order.mchNo)}</dd></dl>
<p class="state s-${esc(order.status)}" id="state" data-status="${esc(order.status)}">${esc(order.status)}</p></section>`
    const errorBlock = error ? `<section class="card"><p class="error" id="error">${esc(error.message)}</p></section>` : ''
    let body = ''
    if (!open) body = order.payTime ? `<section class="card"><dl><dt>钱包 Wallet</dt><dd id="channel">${esc(order.channel)}</dd><dt>支付时间 Paid at</dt><dd>${esc(order.payTime)}</dd></dl></section>` : ''
    else if (wallet) body = `<form class="card" method="post" action="${esc(path)}/pay"><button class="primary" id="pay">使用 ${wallet} 支付 · Pay with ${wallet}</button></form>`
    else {
      const {default: QRCode} = await import('qrcode')
      const svg = await QRCode.toString(`${deps.publicUrl()}${path}`, {type: 'svg', errorCorrectionLevel: 'M', margin: 1})
      body = `<section class="card qr"><div id="qr">${svg}</div><p>请使用任意钱包扫码支付 · Scan with any wallet app</p>
<p class="hint" id="hint">沙箱 Sandbox: open this page in a browser whose user agent contains WalletA/ ... WalletD/ to pay as that wallet.</p></section>`
    }
    return html(error?.status ?? 200, `聚合支付 · ${order.title}`, `<p class="brand">聚合支付 · Aggregate QR</p>${card}${errorBlock}${body}`, {refreshSeconds: !wallet && open ? 3 : undefined})
  }

  async function paymentQrRoute(method: string, order: PayOrder, action: string | undefined, userAgent: string): Promise<PageAnswer> {
    if (!action) return method === 'GET' || method === 'HEAD' ? paymentQrPage(order, userAgent) : notAllowed('GET')
    if (method !== 'POST' || action !== 'pay') return notAllowed('POST')
    const path = `/aggregate/${encodeURIComponent(order.orderNo)}`
    try {
      const wallet = walletFromUserAgent(userAgent)
      if (!wallet) throw new PlatformFailure(10506, 'open this page in a wallet app to pay (its user agent names the wallet: WalletA/ ... WalletD/)')
      pay.payerPays(order.orderNo, 'success', wallet)
      return redirect(path)
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
      return paymentQrPage(pay.findAnyMerchant(order.orderNo), userAgent, {status: ERROR_STATUS[error.code] ?? 400, message: error.message})
    }
  }

  async function orderRoute(method: string, kind: string, orderNo: string, action: string | undefined, rawText: string, userAgent: string): Promise<PageAnswer> {
    const order = gateway.view(orderNo)
    if (!order && kind === 'aggregate') {
      const payment = pay.aggregateOrder(orderNo)
      if (payment) return paymentQrRoute(method, payment, action, userAgent)
    }
    if (!order) return notFound('订单不存在 · Order not found')
    const paths = gatewayPaths(order)
    const own = kind === 'cashier' || kind === 'aggregate' ? paths.h5 : paths.mini
    // A link of the other page type leads to the order's own page.
    if (!own.startsWith(`/${kind}/`)) return redirect(own)
    if (!action) return method === 'GET' || method === 'HEAD' ? orderPage(kind, order, userAgent) : notAllowed('GET')
    if (method !== 'POST') return notAllowed('POST')
    // A repeated submit (a double tap, the back button) on a final order just shows it.
    if (!isOpen(order)) return redirect(paths.h5)
    try {
      if (action === 'pay') gateway.pay(order.orderNo)
      else if (kind === 'cashier') gateway.pick(order.orderNo, new URLSearchParams(rawText).get('method') ?? '')
      else {
        const wallet = walletFromUserAgent(userAgent)
        if (!wallet) throw new PlatformFailure(10506, 'open this page in a wallet app to pay (its user agent names the wallet: WalletA/ ... WalletD/)')
        gateway.pick(order.orderNo, `${wallet}_jsapi`, wallet)
      }
      return redirect(paths.h5)
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
      return orderPage(kind, gateway.view(order.orderNo)!, userAgent, {status: ERROR_STATUS[error.code] ?? 400, message: error.message})
    }
  }

  function authPage(session: AuthSession): PageAnswer {
    const scope = [session.product && `<dt>产品 Product</dt><dd>${esc(session.product)}</dd>`, session.capability && `<dt>能力 Capability</dt><dd>${esc(session.capability)}</dd>`]
      .filter(Boolean)
      .join('')
    const head = `<p class="brand">${esc(session.channel)} 授权 · Authorization</p><section class="card">
<p class="title">商户 ${esc(session.mchNo)} 申请获取你的 ${esc(session.authType)} 身份 (openId) · The merchant asks for your ${esc(session.authType)} identity</p>
<dl><dt>商户 Merchant</dt><dd>${esc(session.mchNo)}</dd><dt>应用 App</dt><dd>${esc(session.appId)}</dd>${scope}</dl>
<p class="state s-${session.status}" id="state" data-status="${session.status}">${session.status === 'success' ? '已授权 · Authorized' : '等待授权 · Waiting for your approval'}</p></section>`
    if (session.status === 'waiting') {
      return html(200, '授权 · Authorize', `${head}<form class="card" method="post" action="/auth/${esc(encodeURIComponent(session.queryCode))}/approve"><button class="primary" id="approve">同意授权 · Allow</button></form>`)
    }
    const back = returnTarget(session)
    return html(200, '已授权 · Authorized', `${head}<section class="card"><p>授权码 Auth code</p><p><code id="auth-code">${esc(session.authCode)}</code></p>
<p class="hint">商户用授权码换取 openId (auth / auth-and-set) · The merchant exchanges this code for your openId.</p>
${back ? `<a class="button primary" id="return" href="${esc(back)}">返回商户 · Back to the merchant</a>` : ''}</section>`)
  }

  function authRoute(method: string, queryCode: string, action: string | undefined): PageAnswer {
    const session = auth.view(queryCode)
    if (session === undefined) return notFound('授权链接不存在 · Unknown authorization link')
    if (session === 'expired') {
      return html(410, '授权已过期 · Expired', `<p class="brand">授权 · Authorization</p><section class="card"><p class="state s-expired" id="state" data-status="not_exist">授权链接已过期 · This authorization link has expired</p><p class="hint">链接有效期 5 分钟 · Links last 5 minutes; ask the merchant for a new one.</p></section>`)
    }
    if (!action) return method === 'GET' || method === 'HEAD' ? authPage(session) : notAllowed('GET')
    if (method !== 'POST') return notAllowed('POST')
    const approved = auth.approve(session)
    // Like a wallet's OAuth screen: back to the merchant with the code and the session token.
    return redirect(returnTarget(approved) ?? `/auth/${encodeURIComponent(queryCode)}`)
  }

  return {
    /** A page answer, or undefined when the path is not a page. */
    async handle(method: string, url: URL, rawText: string, userAgent: string): Promise<PageAnswer | undefined> {
      const order = /^\/(cashier|aggregate)\/([^/]+)(?:\/(pick|pay))?\/?$/.exec(url.pathname) ?? /^\/(cm|am)\/([^/]+)\/?$/.exec(url.pathname)
      const authLink = /^\/auth\/([^/]+)(?:\/(approve))?\/?$/.exec(url.pathname)
      try {
        if (order) return await orderRoute(method, order[1], decodeURIComponent(order[2]), order[3], rawText, userAgent)
        if (authLink) return authRoute(method, decodeURIComponent(authLink[1]), authLink[2])
      } catch (error) {
        if (error instanceof URIError) return notFound('链接无效 · Malformed link')
        throw error
      }
      return undefined
    },
  }
}

/** Where the auth page sends the payer back: an absolute returnPath, with the code and token. */
function returnTarget(session: AuthSession): string | undefined {
  if (session.status !== 'success' || !session.returnPath || !/^https?:\/\//i.test(session.returnPath)) return undefined
  try {
    const target = new URL(session.returnPath)
    target.searchParams.set('authCode', session.authCode!)
    target.searchParams.set('authToken', session.authToken)
    return target.toString()
  } catch {
    return undefined
  }
}

function notAllowed(allow: string): PageAnswer {
  const page = html(405, 'Method not allowed', `<section class="card"><p class="error">请求方式不支持 · Method not allowed (use ${allow})</p></section>`)
  return {...page, headers: {...page.headers, allow}}
}
