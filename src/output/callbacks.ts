// The sandbox's callbacks as table rows, for `sandbox callbacks list` and `resend`.
import {attemptOutcome, type Notification} from '../protocol/notifications.js'
import {formatGmt8} from '../protocol/time.js'
import {time, type Cell} from './format.js'

const HEADERS = ['id', 'event', 'url', 'state', 'attempts', 'last answer', 'next attempt']

/**
 * `terminal`: the first 8 characters of the id, which `resend` accepts, and the URL without
 * `http://`, so that at 80 columns the host and port (what tells receivers apart) stay whole.
 * The next attempt is a GMT+8 time, `-` once there is none.
 */
export function callbackRows(callbacks: Notification[], terminal: boolean): {headers: string[]; rows: Cell[][]} {
  const rows = callbacks.map((callback) => {
    const last = callback.attempts.at(-1)
    return [
      terminal ? callback.id.slice(0, 8) : callback.id,
      callback.event,
      terminal ? callback.url.replace(/^http:\/\//, '') : callback.url,
      callback.state,
      String(callback.attempts.length),
      last ? attemptOutcome(last) : '-',
      callback.nextAttemptAt === undefined ? '-' : time(formatGmt8(new Date(callback.nextAttemptAt))),
    ]
  })
  return {headers: HEADERS, rows}
}
