// Fault injection for the calls of the signed API (/unipay/*) and the epay module (/epay/*),
// switched on per run through the control API: what a real network and platform do on a bad day,
// so that a client's answers to each can be tested. Faults before processing: http-500, not-json.
// After processing (the call took effect, its answer is lost or spoiled): reset, timeout,
// unsigned-success, bad-signature. latency delays.
import type {ServerResponse} from 'node:http'
import {SANDBOX_FAULTS, type FaultRule, type SandboxFault} from '../protocol/local-sandbox.js'

export const FAULTS = SANDBOX_FAULTS

/**
 * What answers a call: `signed` (a /unipay/* or epay V2 answer, with a sign), `unsigned` (epay
 * V1's JSON), `browser` (submit: a redirect or a page for the payer).
 */
export type CallKind = 'signed' | 'unsigned' | 'browser'

/** The faults that spoil an answer's signature: they need a signed answer to spoil. */
const SIGNATURE_FAULTS: readonly SandboxFault[] = ['unsigned-success', 'bad-signature']

export class Faults {
  private rules: FaultRule[] = []

  /** `kindOf`: what answers a path (its call kind), undefined when no call goes there. */
  constructor(private readonly kindOf: (path: string) => {path: string; kind: CallKind} | undefined) {}

  /** Why a rule could never strike (a path no call goes to, a signature fault where no answer is signed), or undefined. */
  refusal(rule: Pick<FaultRule, 'fault' | 'path'>): string | undefined {
    if (rule.path === undefined) return undefined
    const call = this.kindOf(rule.path)
    if (!call) {
      return `path: no call goes to ${rule.path}: faults strike the signed API (/unipay/pay, /unipay/query/pay, ...) and the epay module (/epay/api/v1/mapi.php, /epay/api/v2/api/pay/query, ...)`
    }
    if (!SIGNATURE_FAULTS.includes(rule.fault) || call.kind === 'signed') return undefined
    const why = call.kind === 'unsigned'
      ? 'epay V1 answers are never signed, so there is no signature to spoil or leave out'
      : 'it answers the payer\'s browser (a redirect or an HTML page), which carries no signature'
    return `${rule.fault} makes no sense on ${rule.path}: ${why}; it strikes signed answers (/unipay/*, epay V2 at /epay/api/v2/api/pay/)`
  }

  /** Arms a rule (refusal() first); an epay path is kept as the module reads it (doubled slashes merged). */
  add(rule: FaultRule): FaultRule {
    const armed = rule.path === undefined ? rule : {...rule, path: this.kindOf(rule.path)?.path ?? rule.path}
    this.rules.push(armed)
    return armed
  }

  /** Removes every fault; answers how many were still armed. */
  clear(): number {
    const armed = this.list().length
    this.rules = []
    return armed
  }

  list(): FaultRule[] {
    return this.rules.filter((rule) => rule.remaining > 0)
  }

  /** The fault for this call, if any, using up one of its requests; a rule without a path strikes any call it makes sense on. */
  take(path: string, kind: CallKind): FaultRule | undefined {
    const rule = this.rules.find((r) => r.remaining > 0 && (r.path ? r.path === path : kind === 'signed' || !SIGNATURE_FAULTS.includes(r.fault)))
    if (rule) rule.remaining--
    return rule
  }
}

/** A whole answer, as a call's handler makes it. */
interface CallAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

const JSON_TYPE = {'content-type': 'application/json; charset=utf-8'}

/** Writes a whole answer. */
export function writeAnswer(res: ServerResponse, {status, headers, body}: CallAnswer): void {
  res.writeHead(status, {...headers, 'content-length': Buffer.byteLength(body)})
  res.end(body)
}

/** Answers a call the way the fault says: before it is carried out, after (its answer lost or spoiled), or late. */
export async function strike(rule: FaultRule, carryOut: () => Promise<CallAnswer>, res: ServerResponse): Promise<void> {
  switch (rule.fault) {
    case 'latency':
      await new Promise((resolve) => setTimeout(resolve, rule.latencyMs ?? 2000))
      return writeAnswer(res, await carryOut())
    case 'http-500':
      return writeAnswer(res, {status: 500, headers: JSON_TYPE, body: '{"error":"injected fault: internal error"}'})
    case 'not-json':
      return writeAnswer(res, {status: 200, headers: {'content-type': 'text/html'}, body: '<html><body>502 Bad Gateway (injected fault)</body></html>'})
    case 'reset': {
      const answer = await carryOut()
      res.writeHead(answer.status, {...answer.headers, 'content-length': Buffer.byteLength(answer.body)})
      res.write(answer.body.slice(0, Math.floor(answer.body.length / 2)))
      res.destroy()
      return
    }
    case 'timeout':
      await carryOut()
      return // never answered; the client gives up, and closing the server cuts the socket
    case 'unsigned-success':
    case 'bad-signature': {
      const answer = await carryOut()
      return writeAnswer(res, {...answer, body: spoilAnswer(rule.fault, answer.body)})
    }
  }
}

/** Spoils a signed answer after the call took effect. */
function spoilAnswer(fault: 'unsigned-success' | 'bad-signature', answer: string): string {
  const body = JSON.parse(answer) as Record<string, unknown>
  if (fault === 'unsigned-success') {
    delete body.sign
    body.code = 0
    body.msg = 'success'
  } else {
    const sign = String(body.sign ?? '')
    body.sign = (sign[0] === 'A' ? 'B' : 'A') + sign.slice(1)
  }
  return JSON.stringify(body)
}
