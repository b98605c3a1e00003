// The sandbox dashboard (/dashboard): recent orders, refunds, allocations, transfers, gateway
// orders and callbacks with their states and attempts, and buttons that play the payer and the
// channel. Rendered on the server, so it works without JavaScript; a small script swaps in a
// fresh copy every few seconds. Every value printed is escaped; every POST passes the
// same-origin guard (guard.ts) before it gets here.
//
// It acts for whoever holds the control secret, and nobody else: `sandbox open` (which has the
// secret) asks for a one-time sign-in ticket and opens /dashboard?ticket=...; the ticket is
// traded for a same-site HttpOnly cookie, and every dashboard request without that cookie is
// refused (403), on loopback and beyond it alike.
import {randomBytes, timingSafeEqual} from 'node:crypto'
import type {IncomingHttpHeaders} from 'node:http'
import {centsToYuan} from '../protocol/money.js'
import type {Notification} from '../protocol/notifications.js'
import type {Allocation} from './alloc.js'
import {PlatformFailure} from './errors.js'
import type {GatewayOrder} from './gateway.js'
import {escapeHtml as esc, pageHeaders} from './html.js'
import type {Notifier} from './notifier.js'
import type {PayOrder, PayService} from './pay.js'
import type {RefundOrder, RefundService} from './refund.js'
import type {Store} from './store.js'
import type {Transfer, TransferService} from './transfer.js'

export const DASHBOARD_PATH = '/dashboard'

const HEADERS = pageHeaders("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
const ROWS = 20

interface DashboardDeps {
  store: Store
  pay: PayService
  refunds: RefundService
  transfers: TransferService
  notifier: Notifier
  /** The sandbox's address: its port names the cookie (cookies do not tell ports apart). */
  publicUrl: () => string
}

/** How long a sign-in ticket from `sandbox open` stays good (it is good once). */
const TICKET_TTL_MS = 5 * 60 * 1000

interface DashboardAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f2f3f5;color:#1d2129;font:15px/1.5 system-ui,-apple-system,"PingFang SC","WenQuanYi Zen Hei","Noto Sans CJK SC",sans-serif}
main{max-width:1100px;margin:0 auto;padding:12px}
h1{font-size:18px;margin:8px 0}h2{font-size:16px;margin:0 0 8px}
.card{background:#fff;border-radius:12px;padding:12px 14px;margin-bottom:12px;box-shadow:0 1px 3px rgba(0,0,0,.06);overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:6px 8px;border-top:1px solid #eef0f3;vertical-align:top}
th{color:#86909c;font-weight:500;border-top:0}
code{font-size:13px;word-break:break-all}
.s-success,.s-delivered,.s-paid{color:#00a870}.s-fail,.s-close,.s-closed,.s-given_up,.s-failed,.s-expired{color:#e34d59}.s-progress,.s-processing,.s-pending,.s-wait,.s-partial,.s-wait_pay,.s-paying{color:#ed7b2f}
form{display:inline}button{padding:6px 10px;margin:2px;border:1px solid #dcdfe6;border-radius:8px;background:#fff;font:inherit;font-size:14px;min-height:36px}
.primary{background:#0052d9;border-color:#0052d9;color:#fff}
.error{color:#e34d59;font-weight:600}.hint{color:#86909c;font-size:13px}
details summary{cursor:pointer}
@media (max-width:640px){th:nth-child(4),td:nth-child(4){display:none}}
`

// Live updates on top of the server-rendered page: fetch the page again and swap its content.
const LIVE = `<script>(function(){setInterval(function(){if(document.activeElement&&document.activeElement.tagName==='BUTTON')return;fetch(location.pathname,{cache:'no-store'}).then(function(r){return r.text()}).then(function(t){var d=new DOMParser().parseFromString(t,'text/html');var n=d.getElementById('live');if(n)document.getElementById('live').replaceWith(n)}).catch(function(){})},2000)})()</script>`

const recent = <T>(items: T[], time: (item: T) => string | number | undefined) =>
  [...items].sort((a, b) => String(time(b) ?? '').localeCompare(String(time(a) ?? ''))).slice(0, ROWS)

const state = (status: string) => `<span class="s-${esc(status)}" data-status="${esc(status)}">${esc(status)}</span>`

function action(name: string, id: string, label: string, primary = false): string {
  return `<form method="post" action="${DASHBOARD_PATH}"><input type="hidden" name="action" value="${esc(name)}"><input type="hidden" name="id" value="${esc(id)}"><button${primary ? ' class="primary"' : ''} data-action="${esc(name)}" data-id="${esc(id)}">${esc(label)}</button></form>`
}

function table(title: string, id: string, head: string[], rows: string[][]): string {
  const body = rows.length === 0 ? `<p class="hint">none yet</p>` : `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c, i) => `<td${i === r.length - 1 ? ' class="actions"' : ''}>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`
  return `<section class="card" id="${id}"><h2>${esc(title)}</h2>${body}</section>`
}

export function createDashboard({store, pay, refunds, transfers, notifier, publicUrl}: DashboardDeps) {
  /** Unused sign-in tickets and when they lapse (real time). */
  const tickets = new Map<string, number>()
  /** The cookie's value for this run of the sandbox. */
  const session = Buffer.from(randomBytes(32).toString('base64url'))
  const cookieName = () => `unipay_dashboard_${new URL(publicUrl()).port}`

  function signedIn(headers: IncomingHttpHeaders): boolean {
    const name = cookieName()
    for (const part of (headers.cookie ?? '').split(';')) {
      const [key, ...value] = part.trim().split('=')
      if (key !== name) continue
      const given = Buffer.from(value.join('='))
      if (given.length === session.length && timingSafeEqual(given, session)) return true
    }
    return false
  }

  function refused(message: string): DashboardAnswer {
    const body = `<!doctype html><meta charset="utf-8"><title>unipay sandbox</title><p>${esc(message)}</p>`
    return {status: 403, headers: {...HEADERS, 'content-length': String(Buffer.byteLength(body))}, body}
  }

  /** Trades a good ticket for the cookie, once; the address bar then loses the ticket. */
  function signIn(ticket: string): DashboardAnswer {
    const lapses = tickets.get(ticket)
    tickets.delete(ticket)
    if (lapses === undefined || lapses < Date.now()) return refused('This sign-in link was used already or has expired: run `unipay sandbox open` again.')
    const cookie = `${cookieName()}=${session.toString()}; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict`
    return {status: 303, headers: {location: DASHBOARD_PATH, 'set-cookie': cookie, 'cache-control': 'no-store'}, body: ''}
  }

  function render(status: number, error?: string): DashboardAnswer {
    const orders = recent(store.values<PayOrder>('payOrders'), (o) => o.createdAt)
    const refundRows = recent(store.values<RefundOrder>('refunds'), (r) => r.createTime)
    const allocRows = recent(store.values<Allocation>('allocations'), (a) => a.allocNo)
    const transferRows = recent(store.values<Transfer>('transfers'), (t) => t.transferNo)
    const gatewayRows = recent(store.values<GatewayOrder>('gatewayOrders'), (g) => g.orderNo)
    const callbacks = recent(store.values<Notification>('notifications'), (n) => n.createdAt)
    const open = (s: string) => s === 'wait' || s === 'progress'
    const live = `<div id="live">
${table('Payment orders', 'orders', ['Order', 'Title', 'Amount', 'Method', 'Status', ''], orders.map((o) => [
  `<code>${esc(o.orderNo)}</code><br><span class="hint">${esc(o.bizOrderNo)}</span>`, esc(o.title), `¥${esc(centsToYuan(o.amount))}`, esc(o.method), state(o.status),
  open(o.status) ? action('pay', o.orderNo, 'Pay', true) + action('fail', o.orderNo, 'Fail') : '',
]))}
${table('Refunds', 'refunds', ['Refund', 'Order', 'Amount', 'Created', 'Status', ''], refundRows.map((r) => [
  `<code>${esc(r.refundNo)}</code>`, `<code>${esc(r.orderNo)}</code>`, `¥${esc(centsToYuan(r.amount))}`, esc(r.createTime), state(r.status),
  r.status === 'progress' ? action('refund-success', r.refundNo, 'Settle', true) + action('refund-fail', r.refundNo, 'Fail') + action('refund-close', r.refundNo, 'Close') : '',
]))}
${table('Allocations', 'allocations', ['Allocation', 'Order', 'Receivers', 'Finished', 'Status', ''], allocRows.map((a) => [
  `<code>${esc(a.allocNo)}</code>`, `<code>${esc(a.orderNo)}</code>`, esc(a.details.map((d) => `${d.receiverAccount} ${d.result}`).join(', ')), esc(a.finishTime ?? ''), state(a.status), '',
]))}
${table('Transfers', 'transfers', ['Transfer', 'Channel', 'Amount', 'Payee', 'Status', ''], transferRows.map((t) => [
  `<code>${esc(t.transferNo)}</code>`, esc(t.channel), `¥${esc(centsToYuan(t.amount))}`, esc(t.payeeAccount), state(t.status),
  t.status === 'processing' && t.channel === 'walletA' ? action('transfer-confirm', t.transferNo, 'Confirm', true) : '',
]))}
${table('Gateway orders', 'gateway', ['Order', 'Type', 'Amount', 'Title', 'Status', ''], gatewayRows.map((g) => [
  `<code>${esc(g.orderNo)}</code>`, esc(g.gatewayType), `¥${esc(centsToYuan(g.amount))}`, esc(g.title), state(g.status), '',
]))}
${table('Callbacks', 'callbacks', ['Event', 'To', 'Attempts', 'Created', 'State', ''], callbacks.map((n) => [
  `${esc(n.event)}<br><code class="hint">${esc(n.id)}</code>`, `<code>${esc(n.url)}</code>`,
  `<details><summary>${n.attempts.length}</summary>${n.attempts.map((a) => `<div class="hint">${esc(a.at)} ${esc(a.httpStatus ?? a.error ?? '')} ${esc(a.bodyExcerpt ?? '')}</div>`).join('')}</details>`,
  esc(n.createdAt), state(n.state), action('resend', n.id, 'Resend'),
]))}
</div>`
    const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>unipay sandbox</title><style>${CSS}</style></head>
<body><main><h1>unipay sandbox</h1>${error ? `<p class="error" id="error">${esc(error)}</p>` : ''}${live}</main>${LIVE}</body></html>`
    return {status, headers: {...HEADERS, 'content-length': String(Buffer.byteLength(body))}, body}
  }

  function act(name: string, id: string): void {
    const refundOutcome = /^refund-(success|fail|close)$/.exec(name)
    if (name === 'pay' || name === 'fail') pay.payerPays(id, name === 'pay' ? 'success' : 'fail')
    else if (refundOutcome) refunds.settle(refunds.findAnyMerchant(id), refundOutcome[1] as 'success' | 'fail' | 'close')
    else if (name === 'transfer-confirm') transfers.confirm(id)
    else if (name === 'resend') {
      if (!notifier.resend(id)) throw new PlatformFailure(20041, `no callback ${id}`)
    } else throw new PlatformFailure(10506, `unknown action ${name}`)
  }

  return {
    /** A one-time sign-in ticket, for `sandbox open` (a control call, so only with the secret). */
    issueTicket(): {ticket: string; expiresInSeconds: number} {
      const now = Date.now()
      for (const [ticket, lapses] of tickets) if (lapses < now) tickets.delete(ticket)
      const ticket = randomBytes(24).toString('base64url')
      tickets.set(ticket, now + TICKET_TTL_MS)
      return {ticket, expiresInSeconds: TICKET_TTL_MS / 1000}
    },

    handle(method: string, rawText: string, url: URL, headers: IncomingHttpHeaders): DashboardAnswer {
      const ticket = url.searchParams.get('ticket')
      if (ticket !== null && (method === 'GET' || method === 'HEAD')) return signIn(ticket)
      if (!signedIn(headers)) return refused('The dashboard acts with the sandbox\'s control secret: open it with `unipay sandbox open`.')
      if (method === 'GET' || method === 'HEAD') return render(200)
      if (method !== 'POST') return {status: 405, headers: {...HEADERS, allow: 'GET, POST'}, body: ''}
      const form = new URLSearchParams(rawText)
      try {
        act(form.get('action') ?? '', form.get('id') ?? '')
      } catch (error) {
        if (!(error instanceof PlatformFailure)) throw error
        return render(409, error.message)
      }
      // post/redirect/get: a reload does not repeat the action
      return {status: 303, headers: {location: DASHBOARD_PATH, 'cache-control': 'no-store'}, body: ''}
    },
  }
}
