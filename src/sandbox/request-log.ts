// Every request the sandbox received, from any client: what `sandbox logs` and the dashboard
// show, and what the foreground mode prints. Kept in memory (the last MAX_ENTRIES); an
// integrator wants the last minutes, not history.
import type {IncomingMessage, ServerResponse} from 'node:http'
import type {ReceivedSignatureDiagnosis} from '../protocol/received-diagnose.js'
import {requestFailed, type RequestLogEntry} from '../protocol/sandbox-requests.js'

export {formatRequestLine, type RequestLogEntry} from '../protocol/sandbox-requests.js'

/** What the handlers learn about a request while answering it. */
export interface RequestNote {
  body?: string
  merchant?: string
  signature?: ReceivedSignatureDiagnosis
  /** The answer's code and message, from a handler that knows them (else read from the answer). */
  code?: string
  message?: string
  /** What the sandbox did beside the answer, in words (a field accepted and ignored). */
  notes?: string[]
}

const MAX_ENTRIES = 5000
const MAX_ANSWER_CHARS = 64 * 1024
/**
 * What an entry keeps of each string a sender chose (path, merchant, message, string to sign,
 * field names) and how many field names: a request without a valid signature (anyone's) may
 * bring a megabyte, and 5,000 entries of that would be gigabytes. The 20052 answer itself still
 * carries the whole string to sign.
 */
const MAX_KEPT_CHARS = 8 * 1024
const MAX_KEPT_FIELDS = 64

function kept(text: string): string {
  return text.length <= MAX_KEPT_CHARS ? text : `${text.slice(0, MAX_KEPT_CHARS)}... (${text.length} characters in all)`
}

const keptMaybe = (text: string | undefined) => (text === undefined ? undefined : kept(text))

function keptOutcome({code, message}: {code?: string; message?: string}): {code?: string; message?: string} {
  return {code, message: keptMaybe(message)}
}

/** Field names until MAX_KEPT_FIELDS of them or MAX_KEPT_CHARS in all: 64 names of 8 KiB each held half a megabyte per entry. */
function keptFields(fields: string[]): string[] {
  const out: string[] = []
  let room = MAX_KEPT_CHARS
  for (const field of fields) {
    if (out.length === MAX_KEPT_FIELDS || room <= 0) break
    out.push(kept(field))
    room -= field.length
  }
  return out.length === fields.length ? out : [...out, `... (${fields.length} fields in all)`]
}

function keptSignature(signature: ReceivedSignatureDiagnosis): ReceivedSignatureDiagnosis {
  const {stringToSign, fields, causes} = signature
  return {stringToSign: kept(stringToSign), fields: keptFields(fields), causes: causes.map(kept)}
}

/**
 * A copy made of new strings: V8 keeps a slice's or a split's whole parent string alive, so an
 * entry holding a piece of a megabyte body would hold the body.
 */
const detached = (entry: RequestLogEntry): RequestLogEntry => JSON.parse(JSON.stringify(entry)) as RequestLogEntry

function merchantOf(url: URL, body: string): string | undefined {
  const trimmed = body.trimStart()
  if (trimmed.startsWith('{')) {
    const match = /"(?:mchNo|pid)"\s*:\s*"([^"]{1,64})"/.exec(body)
    return match?.[1]
  }
  const form = new URLSearchParams(trimmed.includes('=') ? body : '')
  return form.get('pid') ?? form.get('mchNo') ?? url.searchParams.get('pid') ?? url.searchParams.get('mchNo') ?? undefined
}

function outcomeOf(answer: string): {code?: string; message?: string} {
  if (!answer.trimStart().startsWith('{')) return {}
  try {
    const body = JSON.parse(answer) as Record<string, unknown>
    const message = body.msg ?? body.message ?? body.error
    return {code: body.code === undefined ? undefined : String(body.code), message: typeof message === 'string' ? message : undefined}
  } catch {
    return {}
  }
}

export class RequestLog {
  private readonly entries: RequestLogEntry[] = []
  private seq = 0

  constructor(private readonly onEntry?: (entry: RequestLogEntry) => void) {}

  /** Starts watching a request; the entry is added when its answer is done (or cut). */
  watch(req: IncomingMessage, res: ServerResponse, url: URL): RequestNote {
    const started = Date.now()
    const note: RequestNote = {}
    let answer = ''
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
    res.end = ((...args: unknown[]) => {
      const [chunk] = args
      // a signed answer's outcome is noted by its handler: only other answers are read back
      if (note.code === undefined && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) answer = chunk.toString().slice(0, MAX_ANSWER_CHARS)
      return end(...args)
    }) as ServerResponse['end']
    res.once('close', () => {
      const entry: RequestLogEntry = {
        seq: ++this.seq,
        time: new Date(started).toISOString(),
        method: req.method ?? 'GET',
        path: kept(url.pathname),
        merchant: keptMaybe(note.merchant ?? merchantOf(url, note.body ?? '')),
        status: res.writableFinished ? res.statusCode : 0,
        ...keptOutcome(note.code === undefined ? outcomeOf(answer) : {code: note.code, message: note.message}),
        durationMs: Date.now() - started,
        signature: note.signature && keptSignature(note.signature),
        notes: note.notes,
      }
      if (!res.writableFinished) entry.message = 'connection closed before the answer was complete'
      const stored = detached(entry)
      this.entries.push(stored)
      if (this.entries.length > MAX_ENTRIES) this.entries.shift()
      this.onEntry?.(stored)
    })
    return note
  }

  /** The last `limit` entries after a sequence number (only failed ones when asked), oldest first. */
  since(after: number, limit = 500, failedOnly = false): {entries: RequestLogEntry[]; last: number} {
    const entries = this.entries.filter((e) => e.seq > after && (!failedOnly || requestFailed(e)))
    return {entries: entries.slice(-limit), last: this.seq}
  }
}
