// A request the sandbox received, as `GET /_sandbox/requests` serves it: shared by the sandbox
// (which records and, in the foreground, prints them) and the CLI (`sandbox logs`).
import {EPAY_V1_PREFIX} from './epay-api.js'
import {printableValue as v} from './printable.js'
import type {ReceivedSignatureDiagnosis} from './received-diagnose.js'
import {formatGmt8} from './time.js'

export interface RequestLogEntry {
  seq: number
  time: string
  method: string
  path: string
  /** mchNo (unipay), pid (epay) or the merchant a control call named. */
  merchant?: string
  status: number
  /** The platform code of the answer, when it has one. */
  code?: string
  message?: string
  durationMs: number
  /** For a refused signature: the sandbox's string to sign and the likeliest causes. */
  signature?: ReceivedSignatureDiagnosis
  /** What the sandbox did beside its answer (a field accepted and ignored), in words. */
  notes?: string[]
}

/** Whether a request's answer was not a success: an HTTP error, a cut answer, or a code other than 0 (epay V1 succeeds with 1, and fails with -1). */
export function requestFailed(entry: Pick<RequestLogEntry, 'status' | 'code' | 'path'>): boolean {
  if (entry.status >= 400 || entry.status === 0) return true
  if (entry.code === undefined) return false
  return entry.path.startsWith(EPAY_V1_PREFIX) ? entry.code !== '1' : entry.code !== '0'
}

/**
 * One line per request (plus the signature diagnosis), as the foreground mode and `sandbox logs`
 * print it: the time in GMT+8 as every table shows it, and each value a sender chose (path,
 * merchant, message, the string to sign) made printable on one line, so it can neither drive
 * the terminal nor fake a line of the log.
 */
export function formatRequestLine(entry: RequestLogEntry): string {
  const outcome = v(`${entry.code ?? `HTTP ${entry.status}`} ${entry.message ?? ''}`.trim())
  const head = `${formatGmt8(new Date(entry.time))}  ${v(entry.method)} ${v(entry.path)}  ${v(entry.merchant ?? '-')}  ${entry.status === 0 ? 'cut' : entry.status}  ${outcome}  ${entry.durationMs} ms`
  const lines = [head, ...(entry.notes ?? []).map((note) => `    note: ${v(note)}`)]
  if (entry.signature) {
    lines.push(
      `    string to sign (fields ${v(entry.signature.fields.join(', '))}): ${v(entry.signature.stringToSign)}`,
      ...entry.signature.causes.map((cause, i) => `    ${i === 0 ? 'likeliest cause' : 'or'}: ${v(cause)}`),
    )
  }
  return lines.join('\n')
}
