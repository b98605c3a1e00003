// The sandbox clock: the platform's business time (expiry, settlement, callback retries). It is
// the real time plus an offset that `sandbox clock advance` moves forward, and it can be paused
// (`sandbox clock pause`): it then stands still until advanced or resumed, so a test, or a person
// walking through an expiry, sees only what they moved it through. Offset and pause are kept in
// the journal, so a restart keeps them. Clients sign with the real time: replay and timestamp
// windows read the real clock, never this one.
import type {Store} from './store.js'

/** What a move of the clock spans, in epoch ms of the sandbox clock. */
export interface ClockJump {
  from: number
  to: number
}

export class SandboxClock {
  private offsetMs: number
  /** The sandbox time it stands at while paused. */
  private pausedAt: number | undefined

  constructor(
    private readonly store: Store,
    private readonly realNow: () => Date,
  ) {
    this.offsetMs = store.get<number>('meta', 'clockOffsetMs') ?? 0
    this.pausedAt = store.get<number>('meta', 'clockPausedAt')
  }

  now(): Date {
    return new Date(this.pausedAt ?? this.realNow().getTime() + this.offsetMs)
  }

  /** How far it is ahead of the real clock (behind, once paused for longer than it was moved). */
  aheadMs(): number {
    // one reading of the real clock: two could straddle a millisecond and say -1 for 0
    const real = this.realNow().getTime()
    return (this.pausedAt ?? real + this.offsetMs) - real
  }

  paused(): boolean {
    return this.pausedAt !== undefined
  }

  /** Moves it forward (paused or not); in memory only once in the journal. */
  advance(ms: number): ClockJump {
    const from = this.now().getTime()
    if (this.pausedAt !== undefined) {
      this.store.put('meta', 'clockPausedAt', this.pausedAt + ms)
      this.pausedAt += ms
    } else {
      this.store.put('meta', 'clockOffsetMs', this.offsetMs + ms)
      this.offsetMs += ms
    }
    return {from, to: from + ms}
  }

  pause(): void {
    if (this.pausedAt !== undefined) return
    const at = this.now().getTime()
    this.store.put('meta', 'clockPausedAt', at)
    this.pausedAt = at
  }

  /** Lets it run on from where it stands. */
  resume(): void {
    if (this.pausedAt === undefined) return
    const offset = this.pausedAt - this.realNow().getTime()
    this.store.grouped(() => {
      this.store.put('meta', 'clockOffsetMs', offset)
      this.store.delete('meta', 'clockPausedAt')
    })
    this.offsetMs = offset
    this.pausedAt = undefined
  }
}
