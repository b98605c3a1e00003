// The requests the local sandbox received, read through its control endpoint.
import type {SandboxRuntime} from '../protocol/local-sandbox.js'
import type {RequestLogEntry} from '../protocol/sandbox-requests.js'
import {controlCall} from './control.js'

export async function readRequests(runtime: SandboxRuntime, after = 0, limit = 500): Promise<{entries: RequestLogEntry[]; last: number}> {
  return controlCall(runtime, 'GET', `requests?after=${after}&limit=${limit}`)
}

/** Calls `onEntry` for each new request until `signal` aborts; polls, as the sandbox keeps no streams. */
export async function followRequests(runtime: SandboxRuntime, after: number, onEntry: (entry: RequestLogEntry) => void, signal: AbortSignal, intervalMs = 300): Promise<void> {
  let last = after
  while (!signal.aborted) {
    const page = await readRequests(runtime, last)
    for (const entry of page.entries) onEntry(entry)
    last = page.entries.at(-1)?.seq ?? Math.max(last, page.last)
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, intervalMs)
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), {once: true})
    })
  }
}
