// The sandbox's callbacks as table rows, for `sandbox callbacks list` and `resend`.
import {attemptOutcome, type Notification} from '../protocol/notifications.js'
import {formatGmt8} from '../protocol/time.js'

const HEADERS = ['id', 'event', 'url', 'state', 'attempts', 'last answer', 'next attempt']

/** `shortIds`: on a terminal the first 8 characters of the id, which `resend` accepts. */
export function callbackRows(callbacks: Notification[], shortIds: boolean): {headers: string[]; rows: string[][]} {
  const rows = callbacks.map((callback) => {
    const last = callback.attempts.at(-1)
    return [
      shortIds ? callback.id.slice(0, 8) : callback.id,
      callback.event,
      callback.url,
      callback.state,
      String(callback.attempts.length),
      last ? attemptOutcome(last) : '-',
      callback.nextAttemptAt === undefined ? '-' : formatGmt8(new Date(callback.nextAttemptAt)),
    ]
  })
  return {headers: HEADERS, rows}
}
