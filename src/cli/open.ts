// Opens a link in the user's browser with the platform's opener. The URL is passed as one
// argument (never through a shell), and only http(s) URLs are opened: a value starting with
// `-` or naming a local program must never reach the opener.
import {spawn} from 'node:child_process'

const OPENERS: Partial<Record<NodeJS.Platform, string>> = {darwin: 'open', win32: 'explorer.exe'}

/** Resolves to undefined once the opener runs, or to why it could not. */
export function openUrl(url: string): Promise<string | undefined> {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return Promise.resolve(`not an http(s) URL: ${url}`)
  const opener = OPENERS[process.platform] ?? 'xdg-open'
  return new Promise((resolve) => {
    const child = spawn(opener, [url], {detached: true, stdio: 'ignore'})
    child.once('error', (error: NodeJS.ErrnoException) => resolve(`${opener}: ${error.code ?? error.message}`))
    child.once('spawn', () => {
      child.unref()
      resolve(undefined)
    })
  })
}
