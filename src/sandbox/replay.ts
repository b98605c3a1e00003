// Replay protection: a reqId or nonceStr (when sent) is accepted once per merchant within the window, and
// reqTime must be within the window of the sandbox clock. What was seen is kept in the store,
// so a request replayed after a restart is still refused: one record per request, under its
// reqId, naming its nonceStr too (journals written before that hold one record per key).
import {parseGmt8} from '../protocol/time.js'
import {fail} from './errors.js'
import type {Store} from './store.js'

const REPLAY_WINDOW_MS = 300_000

const COLLECTION = 'replay'

interface Seen {
  forgetAt: number
  /** The request's nonceStr key, remembered with its reqId's record. */
  nonce?: string
}

export class ReplayGuard {
  /** The nonceStr keys of the stored records (the records themselves are the store's). */
  private readonly nonces = new Map<string, number>()
  private lastPrune = 0

  constructor(
    private readonly now: () => Date,
    private readonly store: Store,
  ) {
    for (const entry of store.values<Seen>(COLLECTION)) if (entry.nonce) this.nonces.set(entry.nonce, entry.forgetAt)
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
    if (this.seen(reqKey)) fail(10409, `reqId ${reqId} was already used`)
    if (nonceKey && this.seen(nonceKey)) fail(10409, `nonceStr ${nonceStr} was already used`)
    // remembered while its reqTime could still be accepted (reqTime may be ahead of the clock)
    const forgetAt = Math.max(nowMs, time.getTime()) + REPLAY_WINDOW_MS
    this.store.put<Seen>(COLLECTION, reqKey, nonceKey ? {forgetAt, nonce: nonceKey} : {forgetAt})
    if (nonceKey) this.nonces.set(nonceKey, forgetAt)
  }

  /** A key of a record (a reqId, a signature, or any key of a journal from before), or a nonceStr's. */
  private seen(key: string): boolean {
    return this.store.get<Seen>(COLLECTION, key) !== undefined || this.nonces.has(key)
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
    if (this.seen(key)) return false
    this.store.put<Seen>(COLLECTION, key, {forgetAt: Math.max(nowMs, timestampSeconds * 1000) + REPLAY_WINDOW_MS})
    return true
  }

  private prune(nowMs: number): void {
    if (nowMs - this.lastPrune < 10_000) return
    this.lastPrune = nowMs
    for (const [key, {forgetAt}] of this.store.entries<Seen>(COLLECTION)) if (forgetAt < nowMs) this.store.delete(COLLECTION, key)
    for (const [key, forgetAt] of this.nonces) if (forgetAt < nowMs) this.nonces.delete(key)
  }
}
