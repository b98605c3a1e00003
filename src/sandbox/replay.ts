// Replay protection: a reqId or nonceStr is accepted once per merchant within the window, and
// reqTime must be within the window of the sandbox clock.
import {parseGmt8} from '../protocol/time.js'
import {fail} from './errors.js'

export const REPLAY_WINDOW_MS = 300_000

export class ReplayGuard {
  private readonly seen = new Map<string, number>()
  private lastPrune = 0

  constructor(private readonly now: () => Date) {}

  check(mchNo: string, reqId: string, nonceStr: string | undefined, reqTime: string): void {
    const nowMs = this.now().getTime()
    const time = parseGmt8(reqTime)
    if (!time || Math.abs(time.getTime() - nowMs) > REPLAY_WINDOW_MS) {
      fail(10410, `reqTime ${reqTime} is more than ${REPLAY_WINDOW_MS / 1000}s from the platform clock (GMT+8)`)
    }
    if (!nonceStr) fail(10408, 'nonceStr is missing')
    this.prune(nowMs)
    const reqKey = `${mchNo}\u0000r\u0000${reqId}`
    const nonceKey = `${mchNo}\u0000n\u0000${nonceStr}`
    if (this.seen.has(reqKey)) fail(10409, `reqId ${reqId} was already used`)
    if (this.seen.has(nonceKey)) fail(10409, `nonceStr ${nonceStr} was already used`)
    // remembered while its reqTime could still be accepted (reqTime may be ahead of the clock)
    const forgetAt = Math.max(nowMs, time!.getTime()) + REPLAY_WINDOW_MS
    this.seen.set(reqKey, forgetAt)
    this.seen.set(nonceKey, forgetAt)
  }

  private prune(nowMs: number): void {
    if (nowMs - this.lastPrune < 10_000) return
    this.lastPrune = nowMs
    for (const [key, expires] of this.seen) if (expires < nowMs) this.seen.delete(key)
  }
}
