// The payee's confirmation page for walletA transfers: what, how much, from whom, and an
// Accept button; afterwards the final state.
import {centsToYuan} from '../protocol/money.js'
import type {Transfer} from './transfer.js'

import {escapeHtml, pageHeaders} from './html.js'

export const TRANSFER_PAGE_HEADERS = pageHeaders("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'")

const STATE_TEXT: Record<string, string> = {
  processing: 'Waiting for you to accept',
  success: 'Accepted: the money is on its way',
  fail: 'Failed',
  close: 'Closed: not accepted in time',
}

export function transferConfirmPage(transfer: Transfer, error?: string): string {
  const waiting = transfer.status === 'processing'
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Transfer ${escapeHtml(transfer.transferNo)}</title>
<style>
body{font-family:system-ui,"WenQuanYi Zen Hei",sans-serif;margin:0;background:#f4f5f7;color:#1d2129}
main{max-width:420px;margin:0 auto;padding:24px}
.card{background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.amount{font-size:36px;font-weight:600;margin:8px 0}
.state{font-weight:600;margin-top:16px}
.state.success{color:#1a7f37}.state.fail,.state.close{color:#cf222e}
button{width:100%;padding:14px;border:0;border-radius:8px;background:#1a7f37;color:#fff;font-size:17px;margin-top:20px}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 12px;font-size:14px}dt{color:#6b7280}
.error{color:#cf222e}
</style></head>
<body><main><div class="card">
<div>Transfer to you</div>
<div class="amount" id="amount">¥${centsToYuan(transfer.amount)}</div>
<dl><dt>Title</dt><dd id="title">${escapeHtml(transfer.title ?? '')}</dd>
<dt>Payee</dt><dd>${escapeHtml(transfer.payeeName ?? transfer.payeeAccount)}</dd>
<dt>Number</dt><dd>${escapeHtml(transfer.transferNo)}</dd></dl>
<div class="state ${transfer.status}" id="state" data-status="${transfer.status}">${STATE_TEXT[transfer.status] ?? transfer.status}</div>
${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
${waiting ? `<form method="POST"><button id="accept" type="submit">Accept ¥${centsToYuan(transfer.amount)}</button></form>` : ''}
</div></main></body></html>`
}
