// `sandbox trigger`: asks the local sandbox to create and drive the objects an event needs.
import {UsageError} from '../errors.js'
import {TRIGGER_EVENTS, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {controlCall} from './control.js'

export async function triggerEvent(runtime: SandboxRuntime, event: string, notifyUrl: string): Promise<Record<string, string>> {
  if (!(TRIGGER_EVENTS as readonly string[]).includes(event)) {
    throw new UsageError('invalid input', [{field: 'EVENT', message: `${event} is not an event; one of ${TRIGGER_EVENTS.join(', ')}`}])
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
  return controlCall(runtime, 'POST', 'trigger', {event, notifyUrl, mchNo: runtime.merchant.mchNo})
}
