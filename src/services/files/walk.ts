// Rows streamed through a job with bounded concurrency (a batch's sends, a reconciliation's
// queries): at most `concurrency` in flight, nothing new started once the run must stop (an
// interruption, or a run of transport failures), the rows in flight let finish.

/** Consecutive transport failures, with no answer between them, that mean the platform is down. */
const UNREACHABLE_AFTER = 5

/** Why a run stopped before every row was done. */
export type StopReason = 'unreachable' | 'interrupted'

/** Whether to go on: not after an interruption, nor after a run of transport failures. */
export class Health {
  stopped: StopReason | undefined
  private failures = 0
  private halt!: () => void
  /** Settles when the run must stop (so a full window of rows does not hold the loop). */
  readonly halted = new Promise<void>((resolve) => (this.halt = resolve))

  constructor(signal?: AbortSignal) {
    if (signal?.aborted) this.stop('interrupted')
    signal?.addEventListener('abort', () => this.stop('interrupted'), {once: true})
  }

  answered(): void {
    this.failures = 0
  }

  unreachable(): void {
    if (++this.failures >= UNREACHABLE_AFTER) this.stop('unreachable')
  }

  private stop(reason: StopReason): void {
    this.stopped ??= reason
    this.halt()
  }
}

interface WalkOptions<T> {
  concurrency: number
  health: Health
  /** One row's work; a rejection (a bug: no outcome covers it) ends the walk once the rows in flight are done. */
  work: (row: T) => Promise<void>
  /** A row reached after the run had to stop: not started. */
  skipped?: (row: T) => void
  /** After an interruption, how long the rows in flight may take to finish. */
  drainMs: number
}

/**
 * Walks the rows (in batches, as files/reader.ts reads them) with bounded concurrency. Resolves
 * once every row was started or skipped and the rows in flight are done (after an interruption:
 * done, or `drainMs` passed: those still in flight are the caller's to report as cut off).
 */
export async function walkRows<T>(rows: AsyncIterable<Iterable<T>>, options: WalkOptions<T>): Promise<void> {
  const {health} = options
  let running = 0
  /** Wakes the loop when a row is done (or the run must stop), for the next one. */
  let wake: (() => void) | undefined
  void health.halted.then(() => wake?.())
  // kept here, not left as a rejection nobody awaits
  let failure: {error: unknown} | undefined
  const done = () => {
    running--
    wake?.()
  }
  const slot = () => new Promise<void>((resolve) => (wake = resolve))
  reading: for await (const batch of rows) for (const row of batch) {
    if (failure) break reading
    if (health.stopped) {
      options.skipped?.(row)
      continue
    }
    running++
    options
      .work(row)
      .catch((error: unknown) => {
        failure ??= {error}
      })
      .finally(done)
    while (running >= options.concurrency && !health.stopped) await slot()
  }
  // the rows in flight finish; after an interruption, for a bounded time
  const deadline = health.stopped === 'interrupted' ? Date.now() + options.drainMs : Infinity
  let timer: NodeJS.Timeout | undefined
  if (deadline !== Infinity && running > 0) timer = setTimeout(() => wake?.(), options.drainMs)
  while (running > 0 && Date.now() < deadline) await slot()
  clearTimeout(timer)
  if (failure) throw failure.error
}

/** A pause that an abort cuts short (its timer cleared, so it never holds the process). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), {once: true})
  })
}
