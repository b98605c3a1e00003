// A callback the sandbox delivers, as kept on disk and served by `GET /_sandbox/notifications`:
// shared by the sandbox's notifier and the CLI's `sandbox callbacks` commands.

export interface Attempt {
  at: string
  httpStatus?: number
  bodyExcerpt?: string
  error?: string
  acknowledged: boolean
}

/**
 * What the receiver made of an attempt, in words: `acknowledged 200`, `refused: HTTP 200 "fail"`
 * (a 2xx whose body is not SUCCESS is a refusal, retried on the schedule), or the error.
 */
export function attemptOutcome(attempt: Attempt): string {
  if (attempt.httpStatus === undefined) return attempt.error ?? 'no answer'
  if (attempt.acknowledged) return `acknowledged ${attempt.httpStatus}`
  return `refused: HTTP ${attempt.httpStatus} ${JSON.stringify(attempt.bodyExcerpt ?? '')}`
}

export interface Notification {
  id: string
  event: string
  url: string
  body: string
  createdAt: string
  attempts: Attempt[]
  /** Epoch ms of the next attempt; undefined once delivered or given up. */
  nextAttemptAt?: number
  state: 'pending' | 'delivered' | 'given_up'
  /** Set while an attempt is under way: a restart logs it as interrupted, never as delivered. */
  attemptStartedAt?: string
}
