// Which part of the sandbox answers a request: an ordered table, tried top to bottom, the first
// route that matches (and does not pass) answers. Reading the body, the request log and the
// last-resort error answers are done here, once for every route.
import type {IncomingMessage, ServerResponse} from 'node:http'
import {unsignedEndpoints} from '../protocol/endpoints.js'
import {formatGmt8} from '../protocol/time.js'
import type {AuthSessions} from './auth.js'
import {DASHBOARD_PATH, type createDashboard} from './dashboard.js'
import {epayCallOf, type createEpay} from './epay.js'
import {PlatformFailure} from './errors.js'
import {strike, writeAnswer, type Faults} from './faults.js'
import {STATE_CHANGING_PAGES, hostRefusal, pagePostRefusal} from './guard.js'
import {escapeHtml} from './html.js'
import type {Control} from './control.js'
import type {ManagementApi} from './management-api.js'
import type {createPages} from './pages.js'
import type {RequestLog, RequestNote} from './request-log.js'
import type {Send, SignedApi} from './signed-api.js'
import {TRANSFER_PAGE_HEADERS, transferConfirmPage} from './transfer-page.js'
import type {TransferService} from './transfer.js'

/** One request on its way through the table. */
interface Exchange {
  req: IncomingMessage
  res: ServerResponse
  url: URL
  method: string
  /** The body as received; read before every route but the callback ping. */
  rawText: string
  note: RequestNote
  send: Send
}

interface Route {
  name: string
  matches(req: IncomingMessage, url: URL): boolean
  /** Answers; `false` passes the request on (the pages know their own paths). */
  handle(x: Exchange): Promise<void | false> | void | false
  /** Answered without reading the body. */
  bodyless?: true
}

interface RouteParts {
  now: () => Date
  /** The Host values the sandbox answers to (guard.ts `ownHosts`). */
  hosts: () => Set<string> | undefined
  dashboard: ReturnType<typeof createDashboard>
  pages: ReturnType<typeof createPages>
  authSessions: AuthSessions
  transfers: TransferService
  managementApi: ManagementApi
  control: Control
  epay: ReturnType<typeof createEpay>
  signedApi: SignedApi
  faults: Faults
}

const UNSIGNED_PATHS = new Set(Object.values(unsignedEndpoints).map((endpoint) => endpoint.path))

const refusalPage = (x: Exchange, refusal: string) => x.send(403, `<!doctype html><meta charset="utf-8"><p>${escapeHtml(refusal)}</p>`, 'text/html; charset=utf-8')

/**
 * The order is the contract:
 * 1. the callback ping first, before the body is read: it is the CLI's "is it up" probe, and a
 *    GET under /unipay/ that the signed API (POST only) would answer 404;
 * 2. a refused page form before any page: every state-changing page (pages, dashboard, transfer
 *    confirm, epay's pay page; guard.ts STATE_CHANGING_PAGES) is guarded by that one row;
 * 3. pages (browser-facing, then the unsigned auth calls) before the management API; their
 *    paths do not overlap, so this order only keeps the browser's routes together;
 * 4. control (/_sandbox/*) checks its guard before any handler or schema sees the call;
 * 5. epay (/epay/*), then the signed API (POST to a path of the endpoint catalog), which
 *    claims nothing outside the catalog; both meet an armed fault (faults.ts) first;
 * 6. not found last, matching everything.
 */
export function sandboxRoutes(parts: RouteParts): Route[] {
  const {dashboard, pages, authSessions, transfers, managementApi, control, epay, signedApi, faults} = parts
  return [
    {
      name: 'callback ping',
      bodyless: true,
      matches: (req, url) => req.method === 'GET' && url.pathname === '/unipay/callback/ping',
      handle: (x) => x.send(200, JSON.stringify({code: 0, msg: 'pong', data: formatGmt8(parts.now())})),
    },
    {
      name: 'refused page form',
      // only pages and control calls check Host: signed API calls skip parsing the address
      matches: (req, url) => req.method === 'POST' && STATE_CHANGING_PAGES.test(url.pathname) && pagePostRefusal(req.headers, parts.hosts()) !== undefined,
      handle: (x) => refusalPage(x, pagePostRefusal(x.req.headers, parts.hosts())!),
    },
    {
      name: 'dashboard',
      matches: (_, url) => url.pathname === DASHBOARD_PATH,
      handle(x) {
        // reading it from a rebound name would show the orders to another site
        const refusal = hostRefusal(x.req.headers, parts.hosts())
        if (refusal) return refusalPage(x, refusal)
        const page = dashboard.handle(x.method, x.rawText, x.url, x.req.headers)
        x.res.writeHead(page.status, page.headers)
        x.res.end(page.body)
      },
    },
    {
      name: 'pages',
      matches: () => true,
      async handle(x) {
        const page = await pages.handle(x.method, x.url, x.rawText, x.req.headers['user-agent'] ?? '')
        if (!page) return false
        x.res.writeHead(page.status, page.headers)
        x.res.end(page.body)
      },
    },
    {
      name: 'unsigned auth calls',
      matches: (req, url) => req.method === 'POST' && UNSIGNED_PATHS.has(url.pathname),
      handle(x) {
        const answer = authSessions.unsignedCall(x.method, x.url.pathname, x.rawText)
        if (!answer) return false
        x.send(200, JSON.stringify(answer))
      },
    },
    {
      name: 'transfer confirm page',
      matches: (_, url) => /^\/transfer\/confirm\/([A-Za-z0-9]+)$/.test(url.pathname),
      handle: (x) => transferConfirm(transfers, x),
    },
    {
      name: 'management API',
      matches: (_, url) => url.pathname.startsWith('/token/') || url.pathname.startsWith('/mch/'),
      handle(x) {
        const answer = managementApi.handle(x.method, x.url, x.rawText, x.req.headers.accesstoken as string | undefined)
        x.send(answer.status, JSON.stringify(answer.body))
      },
    },
    {
      name: 'control',
      matches: (_, url) => url.pathname.startsWith('/_sandbox/'),
      async handle(x) {
        const answer = await control.handle(x.method, x.url.pathname, x.req.headers, x.rawText, x.url.searchParams)
        x.send(answer.status, JSON.stringify(answer.body))
      },
    },
    {
      name: 'epay',
      matches: (_, url) => url.pathname.startsWith('/epay/'),
      async handle(x) {
        const carryOut = async () => {
          const {outcome, ...answer} = epay.handle(x.method, x.url, x.rawText, x.req.headers['content-type'])
          if (outcome) Object.assign(x.note, outcome)
          return answer
        }
        const call = epayCallOf(x.url.pathname)
        const fault = call && faults.take(call.path, call.kind)
        if (fault) return strike(fault, carryOut, x.res)
        writeAnswer(x.res, await carryOut())
      },
    },
    {
      name: 'signed API',
      matches: (req, url) => req.method === 'POST' && signedApi.serves(url.pathname),
      handle: (x) => signedApi.handle(x.url.pathname, x.rawText, x.note, x.res, x.send),
    },
    {
      name: 'not found',
      matches: () => true,
      handle: (x) => x.send(404, JSON.stringify({code: 10404, message: `no route ${x.method} ${x.url.pathname}`, data: null})),
    },
  ]
}

/** The payee's page of a transfer that waits for confirmation; a POST confirms it. */
function transferConfirm(transfers: TransferService, x: Exchange): void {
  const transfer = transfers.byNumber(x.url.pathname.slice('/transfer/confirm/'.length))
  const sendPage = (status: number, body: string) => {
    x.res.writeHead(status, {...TRANSFER_PAGE_HEADERS, 'content-length': Buffer.byteLength(body)}).end(body)
  }
  if (!transfer) return sendPage(404, '<!doctype html><meta charset="utf-8"><p>No such transfer.</p>')
  if (x.method === 'POST') {
    try {
      transfers.confirm(transfer.transferNo)
    } catch (error) {
      if (!(error instanceof PlatformFailure)) throw error
      return sendPage(409, transferConfirmPage(transfer, error.message))
    }
    x.res.writeHead(303, {location: x.url.pathname}).end()
    return
  }
  sendPage(200, transferConfirmPage(transfers.byNumber(transfer.transferNo)!))
}

const MAX_BODY_BYTES = 1024 * 1024

/** The request handler: the first matching route of the table answers. */
export function createDispatcher(routes: Route[], requestLog: RequestLog) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const send: Send = (status, body, type = 'application/json; charset=utf-8') => {
      res.writeHead(status, {'content-type': type, 'content-length': Buffer.byteLength(body)})
      res.end(body)
    }
    // reading the log, and the dashboard's live refresh, are not logged: both poll
    const polling = url.pathname === '/_sandbox/requests' || (req.method === 'GET' && url.pathname === DASHBOARD_PATH)
    const note: RequestNote = polling ? {} : requestLog.watch(req, res, url)
    const x: Exchange = {req, res, url, method: req.method ?? 'GET', rawText: '', note, send}
    let bodyRead = false
    try {
      for (const route of routes) {
        if (!route.matches(req, url)) continue
        if (!route.bodyless && !bodyRead) {
          x.rawText = note.body = await readBody(req)
          bodyRead = true
        }
        if ((await route.handle(x)) !== false) return
      }
    } catch (error) {
      if (error instanceof PlatformFailure) {
        return send(200, JSON.stringify({code: error.code, message: error.message, data: null}))
      }
      if (error instanceof BodyTooLarge) return send(413, JSON.stringify({code: 10505, message: error.message, data: null}))
      send(500, JSON.stringify({code: 1, message: `sandbox error: ${(error as Error).message}`, data: null}))
    }
  }
}

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
