// The callbacks the local sandbox delivers, read and resent through its control endpoints.
import {UsageError} from '../errors.js'
import type {Notification} from '../protocol/notifications.js'
import type {SandboxRuntime} from '../protocol/local-sandbox.js'
import {controlCall} from './control.js'

/** Every callback with its attempt log, oldest first. */
export async function listCallbacks(runtime: SandboxRuntime): Promise<Notification[]> {
  const all = await controlCall<Notification[]>(runtime, 'GET', 'notifications')
  return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
}

/** Sends a callback again now; `id` may be a unique prefix, as `sandbox callbacks list` shows it. */
export async function resendCallback(runtime: SandboxRuntime, id: string): Promise<Notification> {
  const matches = (await listCallbacks(runtime)).filter((n) => n.id.startsWith(id))
  if (matches.length === 0) throw new UsageError(`no callback ${id}; \`unipay sandbox callbacks list\` shows them`)
  if (matches.length > 1) throw new UsageError(`${id} matches ${matches.length} callbacks; give more of the id`)
  return controlCall<Notification>(runtime, 'POST', `notifications/${encodeURIComponent(matches[0].id)}/resend`)
}
