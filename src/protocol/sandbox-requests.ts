// A request the sandbox received, as `GET /_sandbox/requests` serves it: shared by the sandbox
// (which records and, in the foreground, prints them) and the CLI (`sandbox logs`).
import type {ReceivedSignatureDiagnosis} from './received-diagnose.js'

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
}

/** Whether a request's answer was not a success: an HTTP error, a cut answer, or a code other than 0 (and epay V1's success, 1). */
export function requestFailed(entry: Pick<RequestLogEntry, 'status' | 'code'>): boolean {
  return entry.status >= 400 || entry.status === 0 || (entry.code !== undefined && entry.code !== '0' && entry.code !== '1')
}

/** One line per request (plus the signature diagnosis), as the foreground mode and `sandbox logs` print it. */
export function formatRequestLine(entry: RequestLogEntry): string {
  const outcome = `${entry.code ?? `HTTP ${entry.status}`} ${entry.message ?? ''}`.trim()
  const head = `${entry.time}  ${entry.method} ${entry.path}  ${entry.merchant ?? '-'}  ${entry.status === 0 ? 'cut' : entry.status}  ${outcome}  ${entry.durationMs} ms`
  if (!entry.signature) return head
  return [
    head,
    `    string to sign (fields ${entry.signature.fields.join(', ')}): ${entry.signature.stringToSign}`,
    ...entry.signature.causes.map((cause, i) => `    ${i === 0 ? 'likeliest cause' : 'or'}: ${cause}`),
  ].join('\n')
}
