// Fault injection for /unipay/* calls, switched on per run through the control API: what a
// real network and platform do on a bad day, so that the CLI's answers to each can be tested.
// Faults before processing: http-500, not-json. After processing (the call took effect, its
// answer is lost or spoiled): reset, timeout, unsigned-success, bad-signature. latency delays.
import {SANDBOX_FAULTS, type FaultRule} from '../protocol/local-sandbox.js'

export const FAULTS = SANDBOX_FAULTS

export class Faults {
  private rules: FaultRule[] = []

  add(rule: FaultRule): FaultRule {
    this.rules.push(rule)
    return rule
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

  /** The fault for this request, if any, using up one of its requests. */
  take(path: string): FaultRule | undefined {
    const rule = this.rules.find((r) => r.remaining > 0 && (!r.path || r.path === path))
    if (rule) rule.remaining--
    return rule
  }
}

/** Spoils a signed answer after the call took effect. */
export function spoilAnswer(fault: 'unsigned-success' | 'bad-signature', answer: string): string {
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
