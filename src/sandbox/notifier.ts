// Callback delivery (protocol-notes section 5): signed `system` envelopes POSTed to notifyUrl,
// acknowledged by 2xx and a body of SUCCESS, retried on the schedule, every attempt kept on disk
// so that a restart resumes where it stopped. An attempt is marked before it is sent, so one cut
// short by a kill is logged (unacknowledged) after the restart instead of vanishing. An epay V2
// notification is signed afresh at every attempt: its receivers refuse a `timestamp` over 300 s old.
// When the sandbox clock jumps, the attempts that fell due inside the jump are made one after
// another, each at its due time on that clock, as a clock running through those hours would have.
import {randomUUID} from 'node:crypto'
import type {KeyObject} from 'node:crypto'
import {canonicalString, flattenToStrings} from '../protocol/canonical.js'
import type {Attempt, Notification} from '../protocol/notifications.js'
import {signRsa} from '../protocol/epay.js'
import {signString} from '../protocol/signature.js'
import {formatGmt8} from '../protocol/time.js'
import type {ClockJump} from './clock.js'
import type {Store} from './store.js'

export type {Attempt, Notification}

/**
 * A stored notification; `easy_pay` ones are a GET of `url` (the signed parameters in its query),
 * with no body. A V2 one keeps its notify_url and unsigned parameters, to sign each attempt.
 */
type Delivery = Notification & {protocol?: 'system' | 'easy_pay'; notifyUrl?: string; v2Params?: Record<string, string>}

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const RETRY_DELAYS_MS = [
  15 * SECOND, 15 * SECOND, 30 * SECOND, 3 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE, 30 * MINUTE,
  30 * MINUTE, 60 * MINUTE, 3 * HOUR, 3 * HOUR, 3 * HOUR, 6 * HOUR, 6 * HOUR, 6 * HOUR,
]
const ATTEMPT_TIMEOUT_MS = 15 * SECOND
const MAX_IN_FLIGHT = 16

interface NotifierOptions {
  store: Store
  platformKey: KeyObject
  /** Divides every wait (retries, timeouts) so that tests can run the schedule quickly. */
  timeScale: number
  now: () => Date
  /** The real time, for the times a receiver checks for freshness (resTime, V2 timestamp); the sandbox clock may be moved ahead. */
  signingNow?: () => Date
}

export class Notifier {
  private timer: NodeJS.Timeout | undefined
  private inFlight = 0
  private readonly running = new Set<string>()
  /** The attempt under way for a notification, to wait for. */
  private readonly attempts = new Map<string, Promise<void>>()
  private readonly pending = new Set<string>()
  private stopped = false
  /** Notifications kept while a signed call is answered (see withheld). */
  private parked: string[] | undefined
  /** The clock's jump being caught up with (see caughtUp), and who waits for the end of it. */
  private jump: ClockJump | undefined
  private readonly catchUpWaiters: {resolve(): void; reject(error: unknown): void}[] = []

  constructor(private readonly options: NotifierOptions) {}

  start(): void {
    for (const notification of this.options.store.values<Notification>('notifications')) {
      if (notification.state !== 'pending') continue
      if (notification.attemptStartedAt) {
        // The sandbox failed, not the receiver: log the attempt and resume at once, not after a delay.
        const interrupted: Attempt = {at: notification.attemptStartedAt, error: 'interrupted: the sandbox stopped before the answer', acknowledged: false}
        if (this.record(notification, interrupted, undefined, true).state !== 'pending') continue
      }
      this.pending.add(notification.id)
    }
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    for (const waiter of this.catchUpWaiters.splice(0)) waiter.resolve()
  }

  /** Records a notification (before the triggering answer goes out) and sends it soon. */
  emit(input: {event: string; url: string; mchNo: string; appId?: string; data: Record<string, unknown>}): Notification {
    const {platformKey, now} = this.options
    const id = randomUUID()
    const envelope: Record<string, unknown> = {
      code: 0,
      msg: 'success',
      data: flattenToStrings(input.data),
      resTime: formatGmt8((this.options.signingNow ?? now)()),
      reqId: `N${id.replaceAll('-', '')}`,
      event: input.event,
      eventId: id,
      protocol: 'system',
      mchNo: input.mchNo,
      appId: input.appId,
    }
    envelope.sign = signString(canonicalString(envelope), platformKey)
    const notification: Notification = {
      id,
      event: input.event,
      url: input.url,
      body: JSON.stringify(envelope),
      createdAt: now().toISOString(),
      attempts: [],
      nextAttemptAt: now().getTime(),
      state: 'pending',
    }
    return this.keep(notification)
  }

  /**
   * Records an `easy_pay` notification (protocol-notes section 7): a GET to notify_url with the
   * signed parameters appended to its query; acknowledged, retried and logged like the others.
   * V2 (`signedEachAttempt`) gets a fresh `timestamp` and platform signature at every attempt.
   */
  emitEasyPay(input: {event: string; url: string; mchNo: string; params: Record<string, string>; signedEachAttempt?: boolean}): Notification {
    const {now} = this.options
    const id = randomUUID()
    let v2Params: Record<string, string> | undefined
    if (input.signedEachAttempt) {
      const {sign: _sign, sign_type: _signType, timestamp: _timestamp, ...unsigned} = input.params
      v2Params = unsigned
    }
    const notification: Delivery = {
      id,
      event: input.event,
      url: v2Params ? this.signedV2Url(input.url, v2Params) : withParams(input.url, input.params),
      body: '',
      protocol: 'easy_pay',
      notifyUrl: v2Params ? input.url : undefined,
      v2Params,
      createdAt: now().toISOString(),
      attempts: [],
      nextAttemptAt: now().getTime(),
      state: 'pending',
    }
    return this.keep(notification)
  }

  /** notify_url with the V2 parameters signed now: a fresh `timestamp`, then the platform signature. */
  private signedV2Url(notifyUrl: string, unsigned: Record<string, string>): string {
    const params = {...unsigned, timestamp: String(Math.floor((this.options.signingNow ?? this.options.now)().getTime() / 1000))}
    return withParams(notifyUrl, {...params, sign: signRsa(params, this.options.platformKey), sign_type: 'RSA'})
  }

  /**
   * Runs `fn`; the notifications it keeps are sent only once `release` is called. A signed
   * answer is signed on the thread pool after the call's work is done, and the callback about
   * an order must not reach the merchant before the answer that names the order.
   */
  withheld<T>(fn: () => T): {value: T; release: () => void} {
    const parked: string[] = (this.parked = [])
    const release = () => {
      for (const id of parked) this.pending.add(id)
      if (parked.length > 0) setImmediate(() => this.schedule())
    }
    try {
      return {value: fn(), release}
    } catch (error) {
      release()
      throw error
    } finally {
      this.parked = undefined
    }
  }

  /** Keeps a new notification (before the triggering answer goes out) and sends it soon. */
  private keep<T extends Notification>(notification: T): T {
    this.options.store.put('notifications', notification.id, notification)
    if (this.parked) this.parked.push(notification.id)
    else {
      this.pending.add(notification.id)
      setImmediate(() => this.schedule())
    }
    return notification
  }

  /** Sends a notification again now, whatever its state; its attempt log continues. */
  resend(id: string): Notification | undefined {
    const current = this.options.store.get<Notification>('notifications', id)
    if (!current) return undefined
    const next: Notification = {...current, state: 'pending', nextAttemptAt: this.options.now().getTime()}
    this.options.store.put('notifications', id, next)
    this.pending.add(id)
    setImmediate(() => this.schedule())
    return next
  }

  /**
   * Sends a notification again now, whatever its state, and resolves with it once that attempt
   * is logged (an attempt already under way finishes first): what `sandbox callbacks resend` shows.
   */
  async resendNow(id: string): Promise<Notification | undefined> {
    while (this.attempts.has(id)) await this.attempts.get(id)
    const current = this.options.store.get<Notification>('notifications', id)
    if (!current) return undefined
    const next: Notification = {...current, state: 'pending', nextAttemptAt: this.options.now().getTime()}
    this.options.store.put('notifications', id, next)
    this.pending.add(id)
    await this.attempt(next)
    return this.options.store.get<Notification>('notifications', id)
  }

  /**
   * The sandbox clock jumped: makes the attempts that fell due inside the jump, those of one
   * notification one after another, each at its due time (the retry after it is due from then, so
   * a week's jump ends in the given-up state of notes section 5). Resolves once every attempt due
   * by the end of the jump is made, the first attempts of callbacks the jump caused included.
   */
  caughtUp(jump: ClockJump): Promise<void> {
    if (this.stopped) return Promise.resolve()
    // a jump while one is caught up with extends it
    this.jump = this.jump ? {from: this.jump.from, to: jump.to} : jump
    const done = new Promise<void>((resolve, reject) => this.catchUpWaiters.push({resolve, reject}))
    this.schedule()
    return done
  }

  private schedule(): void {
    if (this.stopped) return
    // no request waits for this: a journal that fails under it was reported, and must not crash the process
    this.options.store.background(() => this.sendDue())
    this.settleCatchUp()
  }

  /** Tells those waiting for a jump once no attempt due inside it is left to make (or under way). */
  private settleCatchUp(): void {
    const {jump} = this
    if (!jump) return
    try {
      if (this.running.size > 0) return
      for (const id of this.pending) {
        const due = this.options.store.get<Notification>('notifications', id)?.nextAttemptAt
        if (due !== undefined && due <= jump.to) return
      }
    } catch (error) {
      // the journal failed: the attempts cannot be logged, so the wait is over
      for (const waiter of this.catchUpWaiters.splice(0)) waiter.reject(error)
      return
    }
    this.jump = undefined
    for (const waiter of this.catchUpWaiters.splice(0)) waiter.resolve()
  }

  /** When an attempt due at `due` is made: at its due time when a jump of the clock passed over it, else now. */
  private attemptTime(due: number | undefined): number {
    const {jump} = this
    if (jump && due !== undefined && due <= jump.to) return Math.max(due, jump.from)
    return this.options.now().getTime()
  }

  private sendDue(): void {
    if (this.timer) clearTimeout(this.timer)
    const nowMs = this.options.now().getTime()
    let earliest = Number.POSITIVE_INFINITY
    for (const id of this.pending) {
      const notification = this.options.store.get<Notification>('notifications', id)
      if (!notification || notification.nextAttemptAt === undefined || this.running.has(id)) continue
      if (notification.nextAttemptAt <= nowMs && this.inFlight < MAX_IN_FLIGHT) {
        this.attempt(notification).catch((error: unknown) => this.options.store.background(() => {
          throw error
        }))
      } else {
        earliest = Math.min(earliest, notification.nextAttemptAt)
      }
    }
    if (earliest !== Number.POSITIVE_INFINITY) {
      const wait = Math.max(10, Math.min(2 ** 31 - 1, earliest - nowMs))
      this.timer = setTimeout(() => this.schedule(), wait)
      this.timer.unref()
    }
  }

  private attempt(notification: Notification): Promise<void> {
    const running = this.send(notification).finally(() => {
      this.attempts.delete(notification.id)
      // also when the attempt could not be logged: a catch-up waiting for it must hear of that
      this.settleCatchUp()
    })
    this.attempts.set(notification.id, running)
    return running
  }

  private async send(notification: Notification): Promise<void> {
    const {store, timeScale} = this.options
    const at = this.attemptTime(notification.nextAttemptAt)
    const attempt: Attempt = {at: new Date(at).toISOString(), acknowledged: false}
    const delivery = notification as Delivery
    // the URL as sent this time is kept, so the log shows what the receiver got
    const url = delivery.v2Params && delivery.notifyUrl ? this.signedV2Url(delivery.notifyUrl, delivery.v2Params) : notification.url
    store.put('notifications', notification.id, {...notification, url, attemptStartedAt: attempt.at})
    this.running.add(notification.id)
    this.inFlight++
    try {
      const signal = AbortSignal.timeout(Math.max(1000, ATTEMPT_TIMEOUT_MS / timeScale))
      // a redirect is an answer, never followed: it could send the callback into the sandbox itself
      const response = delivery.protocol === 'easy_pay'
        ? await fetch(url, {method: 'GET', signal, redirect: 'manual'})
        : await fetch(notification.url, {
            method: 'POST',
            redirect: 'manual',
            headers: {'content-type': 'application/json; charset=utf-8'},
            body: notification.body,
            signal,
          })
      const text = await response.text()
      attempt.httpStatus = response.status
      attempt.bodyExcerpt = text.slice(0, 200)
      attempt.acknowledged = response.ok && text.trim().toUpperCase() === 'SUCCESS'
    } catch (error) {
      // fetch says only "fetch failed"; the cause names the problem (ECONNREFUSED, ...).
      const cause = (error as {cause?: {message?: string}}).cause
      attempt.error = cause?.message ?? (error as Error).message
    }
    this.inFlight--
    this.running.delete(notification.id)
    if (this.stopped) return
    // while the clock jumps (this attempt in it, or under way when it began) the retry is due from
    // the attempt's time on the sandbox clock; else from its answer
    const next = this.record(store.get<Notification>('notifications', notification.id) ?? notification, attempt, this.jump ? at : undefined)
    if (next.state !== 'pending') this.pending.delete(notification.id)
    this.schedule()
  }

  /**
   * Logs an attempt and sets what follows: delivered, the next retry (due its delay after `from`,
   * by default now; at once for `retryNow`), or given up.
   */
  private record(current: Notification, attempt: Attempt, from?: number, retryNow = false): Notification {
    const {store, timeScale, now} = this.options
    const attempts = [...current.attempts, attempt]
    const retryIndex = attempts.length - 1
    const next: Notification = attempt.acknowledged
      ? {...current, attempts, attemptStartedAt: undefined, state: 'delivered', nextAttemptAt: undefined}
      : retryIndex < RETRY_DELAYS_MS.length
        ? {...current, attempts, attemptStartedAt: undefined, nextAttemptAt: (from ?? now().getTime()) + (retryNow ? 0 : RETRY_DELAYS_MS[retryIndex] / timeScale)}
        : {...current, attempts, attemptStartedAt: undefined, state: 'given_up', nextAttemptAt: undefined}
    return store.put('notifications', current.id, next)
  }
}

function withParams(url: string, params: Record<string, string>): string {
  const target = new URL(url)
  for (const [key, value] of Object.entries(params)) target.searchParams.append(key, value)
  return target.toString()
}
