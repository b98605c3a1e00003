// `sandbox trigger`: asks the local sandbox to create and drive the objects an event needs.
import {UsageError} from '../errors.js'
import {TRIGGER_EVENTS, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {controlCall} from './control.js'

/** Checks the event and the address before anything is created; returns the event. */
export function checkTrigger(event: string, notifyUrl: string, extraEvents: readonly string[] = []): void {
  const all = [...TRIGGER_EVENTS, ...extraEvents]
  if (!all.includes(event)) {
    throw new UsageError('invalid input', [{field: 'EVENT', message: `${event} is not an event; one of ${all.join(', ')}`}])
  }
  let url: URL | undefined
  try {
    url = new URL(notifyUrl)
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError('invalid input', [{field: 'notify-url', message: `${notifyUrl} is not an http(s) address`}])
  }
}

export async function triggerEvent(runtime: SandboxRuntime, event: string, notifyUrl: string): Promise<Record<string, string>> {
  checkTrigger(event, notifyUrl)
  return controlCall(runtime, 'POST', 'trigger', {event, notifyUrl, mchNo: runtime.merchant.mchNo})
}
