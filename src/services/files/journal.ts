// What any job's journal knows, whatever the job (a batch's payouts, a reconciliation's
// comparisons): which rows are finished, and on which merchant and platform the job ran.
import type {ClientConfig} from '../../client/pipeline.js'
import {UsageError} from '../../errors.js'

/** Which rows are finished: a watermark plus the few finished out of order above it. */
export class FinishedRows {
  private watermark = -1
  private readonly above = new Set<number>()

  add(index: number): void {
    if (index <= this.watermark) return
    this.above.add(index)
    while (this.above.has(this.watermark + 1)) this.above.delete(++this.watermark)
  }

  has(index: number): boolean {
    return index <= this.watermark || this.above.has(index)
  }
}

/**
 * Resuming or settling a job on another merchant or platform would look for its rows in the
 * wrong place. `job` names it in the message ("the batch").
 */
export function checkSamePlatform(start: {mchNo?: string; baseUrl: string} | undefined, client: ClientConfig, journal: string, job: string): void {
  if (!start) return
  if ((start.mchNo ?? '') !== (client.mchNo ?? '')) {
    throw new UsageError(`${journal} was run as merchant ${start.mchNo ?? '(none)'}, but this profile is merchant ${client.mchNo ?? '(none)'}: use the profile ${job} was started with`)
  }
  if (start.baseUrl !== client.baseUrl) {
    throw new UsageError(`${journal} was run against ${start.baseUrl}, but this profile points at ${client.baseUrl}: use the profile ${job} was started with`)
  }
}
