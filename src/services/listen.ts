// The `listen` engine: a local receiver for both callback protocols. Every arrival is verified,
// answered (the acknowledgement only when verified), optionally relayed to the merchant's app,
// and reported to `onArrival` as one record. It never prints, and no input takes it down: a
// receiver that stops on a bad request would hide exactly the callbacks people need to see.
import {lookup} from 'node:dns/promises'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {httpUrlProblem, isThisMachine, resolvesToThisMachine} from '../protocol/addresses.js'
import {checkEasyPayCallback, checkSystemCallback, staleEasyPayTimestamp, type CallbackCheck, type CallbackKeys, type CallbackProtocol} from '../protocol/callback.js'
import {JsonSyntaxError} from '../protocol/json.js'
import {isoGmt8} from '../protocol/time.js'
import {UsageError} from '../errors.js'

/** Documented in `listen --help`: a fixed port, so a notifyUrl written once keeps working. */
export const DEFAULT_LISTEN_PORT = 8787
const CALLBACK_PATH = '/notify'
const MAX_BODY_BYTES = 1024 * 1024
// Under the platform's 15 s attempt timeout, so that it hears our 502 instead of timing out.
const FORWARD_TIMEOUT_MS = 10_000
const EXCERPT_CHARS = 200

export interface Arrival {
  /** ISO 8601 in GMT+8 (`+08:00`). */
  time: string
  protocol: CallbackProtocol | 'unknown'
  method: string
  path: string
  event?: string
  numbers: Record<string, string>
  /** Cents. */
  amount?: string
  status?: string
  signType?: 'RSA' | 'MD5'
  verified: boolean
  reason?: string
  /** What the platform was answered (the body as an excerpt). */
  answer: {status: number; body: string}
  forward?: {url: string; status?: number; error?: string}
  /** The body as received; for a GET (easy_pay), the query string. */
  rawBody: string
}

export interface ListenOptions extends CallbackKeys {
  /** On 127.0.0.1; 0 picks a free port. */
  port: number
  /** The merchant's app: verified callbacks are relayed to it and answered with its answer. */
  forwardTo?: string
  /** Event patterns (`pay.success`, `refund.*`): other verified events are acknowledged, not shown or forwarded. */
  events?: string[]
  onArrival: (arrival: Arrival) => void
  /** The clock an RSA (V2) notification's timestamp is held to (tests set it). */
  now?: () => Date
  /**
   * Where the keys come from instead, asked once the other options are checked (reading the
   * local profile starts the sandbox: bad input starts nothing).
   */
  keys?: () => Promise<CallbackKeys>
}

interface Listener {
  /** The address to give the platform as notifyUrl. */
  notifyUrl: string
  /** The keys callbacks are verified with. */
  keys: CallbackKeys
  close(): Promise<void>
}

interface Answer {
  status: number
  body: Buffer
  contentType: string
}

const textAnswer = (status: number, body: string): Answer => ({status, body: Buffer.from(body, 'utf8'), contentType: 'text/plain; charset=utf-8'})

/** The body, or undefined when it is over the limit (drained, not kept, so we can still answer). */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    else chunks.length = 0
  }
  return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)
}

/** Marks a relayed callback, so one that comes back to this listener is refused instead of looping. */
const FORWARDED_HEADER = 'x-unipay-listen-forwarded'

/**
 * The --forward-to URL, plus what follows /notify in the path, plus the query as received; or
 * undefined when the path would leave the forward base path (a `.` or `..` segment, also
 * percent-encoded or behind a backslash, which URL parsers resolve).
 */
function forwardTarget(base: URL, suffix: string, rawQuery: string | undefined): string | undefined {
  const segments = suffix.split(/[/\\]/)
  if (segments.some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) return undefined
  const basePath = base.pathname.replace(/\/$/, '')
  const path = basePath + suffix || '/'
  const query = [base.search.slice(1), rawQuery].filter(Boolean).join('&')
  const target = `${base.origin}${path}${query ? `?${query}` : ''}`
  // what a URL parser makes of it must still be under the base path
  const resolved = new URL(target)
  return resolved.origin === base.origin && (resolved.pathname === basePath || resolved.pathname.startsWith(`${basePath}/`) || basePath === '') ? target : undefined
}

/** Whether an address names this listener itself (a relay to it would come straight back): by its text, or by a name that resolves here. */
async function isOwnAddress(target: URL, host: string, port: number): Promise<boolean> {
  const targetPort = Number(target.port || (target.protocol === 'https:' ? 443 : 80))
  if (targetPort !== port) return false
  return isThisMachine(target.hostname, host) || (await resolvesToThisMachine(target.hostname, host, lookup))
}

async function relay(target: string, req: IncomingMessage, body: Buffer): Promise<{answer: Answer; status?: number; error?: string}> {
  try {
    const contentType = req.headers['content-type']
    const response = await fetch(target, {
      method: req.method,
      headers: {...(contentType ? {'content-type': contentType} : {}), [FORWARDED_HEADER]: '1'},
      body: req.method === 'GET' ? undefined : body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
    const answer: Answer = {
      status: response.status,
      body: Buffer.from(await response.arrayBuffer()),
      contentType: response.headers.get('content-type') ?? 'text/plain; charset=utf-8',
    }
    return {answer, status: response.status}
  } catch (error) {
    const cause = (error as {cause?: {code?: string; message?: string}}).cause
    const message = cause?.code ?? cause?.message ?? (error as Error).message
    // 502: the platform sees a failed attempt and retries on its schedule.
    return {answer: textAnswer(502, `forward target ${target} failed: ${message}`), error: message}
  }
}

export async function startListener(options: ListenOptions): Promise<Listener> {
  const forwardProblem = options.forwardTo === undefined ? undefined : httpUrlProblem(options.forwardTo)
  if (forwardProblem) throw new UsageError('invalid input', [{field: 'forwardTo', message: forwardProblem}])
  if (options.events?.includes('alloc.partial')) {
    throw new UsageError('invalid input', [{field: 'events', message: 'alloc.partial is not an event: a partial split arrives as alloc.success with data.status partial (protocol notes §5); ask for alloc.success'}])
  }
  const keys: CallbackKeys = options.keys ? await options.keys() : options
  const host = '127.0.0.1'
  const forwardBase = options.forwardTo ? new URL(options.forwardTo) : undefined
  const wanted = eventFilter(options.events)

  function check(protocol: Arrival['protocol'], body: Buffer, rawQuery: string | undefined): CallbackCheck | string {
    if (protocol === 'system') {
      try {
        return checkSystemCallback(body.toString('utf8'), keys)
      } catch (error) {
        if (error instanceof JsonSyntaxError) return `body is not a JSON object: ${error.message}`
        throw error
      }
    }
    if (protocol === 'easy_pay') {
      if (!rawQuery) return 'no query string: easy_pay callbacks carry their fields in the query'
      const params = Object.fromEntries(new URLSearchParams(rawQuery))
      const checked = checkEasyPayCallback(params, keys)
      // a V2 receiver refuses a timestamp over 300 s off, signed or not: unacknowledged, the
      // platform sends it again with a fresh one (protocol notes, section 7)
      const stale = checked.verified && checked.signType === 'RSA' ? staleEasyPayTimestamp(params, options.now?.() ?? new Date()) : undefined
      return stale ? {...checked, verified: false, reason: stale} : checked
    }
    return 'method not allowed: callbacks are POST (system) or GET (easy_pay)'
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET'
    const [path, rawQuery] = (req.url ?? '/').split(/\?(.*)/s, 2) as [string, string | undefined]
    const protocol: Arrival['protocol'] = method === 'POST' ? 'system' : method === 'GET' ? 'easy_pay' : 'unknown'
    const body = await readBody(req)
    const arrival: Arrival = {
      // GMT+8 like every time the platform and the other screens show
      time: isoGmt8(new Date()),
      protocol,
      method,
      path,
      numbers: {},
      verified: false,
      answer: {status: 0, body: ''},
      rawBody: method === 'GET' ? (rawQuery ?? '') : (body?.toString('utf8') ?? ''),
    }
    let answer: Answer
    const known = path === CALLBACK_PATH || path.startsWith(`${CALLBACK_PATH}/`)
    const target = forwardBase && known ? forwardTarget(forwardBase, path.slice(CALLBACK_PATH.length), rawQuery) : undefined
    const result = !known
      ? `unknown path ${path}: callbacks go to ${CALLBACK_PATH}`
      : forwardBase && req.headers[FORWARDED_HEADER] !== undefined
        ? 'a callback this listener relayed came back to it: --forward-to names this listener (a loop), so it is not relayed again'
      : forwardBase && !target
        ? `path ${path} leaves the --forward-to path (a . or .. segment): not relayed`
      : body === undefined
        ? `body over ${MAX_BODY_BYTES} bytes`
        : check(protocol, body, rawQuery)
    if (typeof result === 'string') {
      arrival.reason = result
      answer = textAnswer(!known ? 404 : forwardBase && req.headers[FORWARDED_HEADER] !== undefined ? 508 : body === undefined ? 413 : protocol === 'unknown' ? 405 : 400, result)
    } else {
      Object.assign(arrival, result.summary, {signType: result.signType, verified: result.verified, reason: result.reason})
      if (!result.verified) {
        // Never forwarded: the app only ever sees callbacks the platform signed.
        answer = textAnswer(400, `signature not verified: ${result.reason}`)
      } else if (!wanted(arrival.event)) {
        // verified but not asked for: acknowledged so the platform stops, and left out
        answer = textAnswer(200, protocol === 'system' ? 'SUCCESS' : 'success')
        res.writeHead(answer.status, {'content-type': answer.contentType, 'content-length': answer.body.length})
        res.end(answer.body)
        return
      } else if (target) {
        const relayed = await relay(target, req, body!)
        answer = relayed.answer
        arrival.forward = {url: target, status: relayed.status, error: relayed.error}
      } else {
        answer = textAnswer(200, protocol === 'system' ? 'SUCCESS' : 'success')
      }
    }
    arrival.answer = {status: answer.status, body: answer.body.toString('utf8').slice(0, EXCERPT_CHARS)}
    res.writeHead(answer.status, {'content-type': answer.contentType, 'content-length': answer.body.length})
    res.end(answer.body)
    options.onArrival(arrival)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // A sender that went away mid-body, or a failing onArrival: answer if still possible, go on.
      if (!res.headersSent) res.writeHead(500).end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const taken = error.code === 'EADDRINUSE' || error.code === 'EACCES'
      reject(taken ? new UsageError('invalid input', [{field: 'port', message: `cannot listen on ${host}:${options.port} (${error.code}); pick another port, or 0 for a free one`}]) : error)
    })
    server.listen(options.port, host, () => {
      server.removeAllListeners('error')
      resolve()
    })
  })
  const {port} = server.address() as AddressInfo
  if (forwardBase && (await isOwnAddress(forwardBase, host, port))) {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    throw new UsageError(`--forward-to ${forwardBase.origin} is this listener itself: every callback would be relayed back to it forever; give your app's address`)
  }
  return {
    notifyUrl: `http://${host}:${port}${CALLBACK_PATH}`,
    keys,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A matcher for `--events pay.success,refund.*`; callbacks without an event name (easy_pay) always pass. */
function eventFilter(patterns: string[] | undefined): (event: string | undefined) => boolean {
  if (!patterns || patterns.length === 0) return () => true
  const regexes = patterns.map((p) => new RegExp(`^${p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*')}$`))
  return (event) => event === undefined || regexes.some((r) => r.test(event))
}
