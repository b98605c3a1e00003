// Replay protection: a reqId or nonceStr (when sent) is accepted once per merchant within the window, and
// reqTime must be within the window of the sandbox clock. What was seen is kept in the store,
// so a request replayed after a restart is still refused.
import {parseGmt8} from '../protocol/time.js'
import {fail} from './errors.js'
import type {Store} from './store.js'

export const REPLAY_WINDOW_MS = 300_000

const COLLECTION = 'replay'

interface Seen {
  key: string
  forgetAt: number
}

export class ReplayGuard {
  private readonly seen = new Map<string, number>()
  private lastPrune = 0

  constructor(
    private readonly now: () => Date,
    private readonly store?: Store,
  ) {
    for (const entry of store?.values<Seen>(COLLECTION) ?? []) this.seen.set(entry.key, entry.forgetAt)
  }

  check(mchNo: string, reqId: string, nonceStr: string | undefined, reqTime: string): void {
    const nowMs = this.now().getTime()
    const time = parseGmt8(reqTime)
    // a time no clock ever shows is malformed, not merely outside the window
    if (!time) return fail(10506, `reqTime: ${reqTime} is not a time (yyyy-MM-dd HH:mm:ss, GMT+8)`)
    if (Math.abs(time.getTime() - nowMs) > REPLAY_WINDOW_MS) {
      fail(10410, `reqTime ${reqTime} is more than ${REPLAY_WINDOW_MS / 1000}s from the platform clock (GMT+8)`)
    }
    this.prune(nowMs)
    const reqKey = `${mchNo}\u0000r\u0000${reqId}`
    // nonceStr is optional (notes §2): without one, reqId alone is the replay key
    const nonceKey = nonceStr ? `${mchNo}\u0000n\u0000${nonceStr}` : undefined
    if (this.seen.has(reqKey)) fail(10409, `reqId ${reqId} was already used`)
    if (nonceKey && this.seen.has(nonceKey)) fail(10409, `nonceStr ${nonceStr} was already used`)
    // remembered while its reqTime could still be accepted (reqTime may be ahead of the clock)
    const forgetAt = Math.max(nowMs, time.getTime()) + REPLAY_WINDOW_MS
    this.remember(reqKey, forgetAt)
    if (nonceKey) this.remember(nonceKey, forgetAt)
  }

  /**
   * An epay V2 request is identified by its signature (it has no nonce): the same signed
   * request is refused while its `timestamp` (Unix seconds) could still be accepted. Keyed on
   * the DECODED signature bytes, never on the `sign` text, which many spellings decode to.
   * Returns false, remembering nothing, when these bytes were already received.
   */
  firstSignature(mchNo: string, signature: Buffer, timestampSeconds: number): boolean {
    const nowMs = this.now().getTime()
    this.prune(nowMs)
    const key = `${mchNo}\u0000sig\u0000${signature.toString('hex')}`
    if (this.seen.has(key)) return false
    this.remember(key, Math.max(nowMs, timestampSeconds * 1000) + REPLAY_WINDOW_MS)
    return true
  }

  private remember(key: string, forgetAt: number): void {
    this.seen.set(key, forgetAt)
    this.store?.put<Seen>(COLLECTION, key, {key, forgetAt})
  }

  private prune(nowMs: number): void {
    if (nowMs - this.lastPrune < 10_000) return
    this.lastPrune = nowMs
    for (const [key, expires] of this.seen) {
      if (expires >= nowMs) continue
      this.seen.delete(key)
      this.store?.delete(COLLECTION, key)
    }
  }
}
