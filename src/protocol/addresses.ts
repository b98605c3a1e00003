// Where a URL given to the platform leads. One rule makes it a URL the platform will call or send
// a browser to (notifyUrl, returnUrl, notify_url): the CLI checks it before sending, the sandbox
// refuses what fails it (10506). And whether a URL leads back to the server that checks it (the
// sandbox's own address, `listen`'s own port): by its text, or by a name that resolves to this
// machine. Pure: the machine's name, addresses and name lookup are given by the caller.

/** This machine's name and its interfaces' addresses (IPv6 in brackets, as URL.hostname writes them). */
export interface ThisMachine {
  name: string
  addresses: string[]
}

/** A name's addresses, getaddrinfo's (/etc/hosts included): `lookup` of node:dns/promises. */
type Lookup = (name: string, options: {all: true}) => Promise<{address: string}[]>

/** How long a name is looked up before it is left to delivery (a name that does not resolve is no one's address). */
const LOOKUP_MS = 1000

/** The port a URL's text gives, when its host can be read (`http://[::1` has none to read). */
function portText(value: string): string | undefined {
  const authority = /^https?:\/\/([^/?#]*)/i.exec(value)?.[1] ?? ''
  return /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/.exec(authority.slice(authority.lastIndexOf('@') + 1))?.[1]
}

/**
 * Why a URL is not one the platform calls, or undefined: an http(s) URL without spaces, that a
 * URL parser reads (its port 0 to 65535, its host a name or an address), with no user name or
 * password in it (they would be sent to whoever the URL names, and printed wherever it is).
 */
export function httpUrlProblem(value: string): string | undefined {
  if (!/^https?:\/\/[^\s]+$/.test(value)) return 'must be an http(s) URL'
  let url: URL
  try {
    url = new URL(value)
  } catch {
    const port = portText(value)
    if (port !== undefined && !/^\d{0,5}$/.test(port)) return `is not a URL: its port "${port.slice(0, 20)}" is not a number`
    if (port !== undefined && Number(port) > 65535) return `is not a URL: its port ${port} is out of range (0 to 65535)`
    return 'is not a URL: its host is not a name or an address'
  }
  if (url.username || url.password) return 'must not carry a user name or password'
  return undefined
}

/**
 * Whether a host (as URL.hostname writes it) is this machine by its text alone: loopback, the
 * unspecified address, *.localhost, the host the server listens on; for a server listening on
 * every address, this machine's name and its addresses too.
 */
export function isThisMachine(hostname: string, listening: string, machine?: () => ThisMachine): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === listening || name === 'localhost' || name.endsWith('.localhost') || name.startsWith('127.')) return true
  if (name === '[::1]' || name === '0.0.0.0' || name === '[::]' || name.startsWith('[::ffff:7f')) return true
  if ((listening === '0.0.0.0' || listening === '[::]') && machine) {
    const {name: own, addresses} = machine()
    return name === own.toLowerCase() || addresses.includes(name)
  }
  return false
}

/** A host that is a name to look up, not an address (URL.hostname writes every IPv4 form dotted, IPv6 in brackets). */
const isName = (hostname: string) => !hostname.startsWith('[') && !/^[\d.]+$/.test(hostname)

/**
 * Whether a name resolves, within about a second (LOOKUP_MS), to an address that is this machine
 * (isThisMachine's rule): an /etc/hosts alias, the machine's own name. A name that does not
 * resolve in time is not this machine: delivery will find out.
 */
export async function resolvesToThisMachine(hostname: string, listening: string, lookup: Lookup, machine?: () => ThisMachine): Promise<boolean> {
  if (!isName(hostname)) return false
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<{address: string}[]>((resolve) => (timer = setTimeout(resolve, LOOKUP_MS, [])))
  const found = await Promise.race([lookup(hostname, {all: true}).catch(() => []), late]).finally(() => clearTimeout(timer))
  return found.some(({address}) => isThisMachine(asHostname(address), listening, machine))
}

/** An address as URL.hostname writes it (`::ffff:127.0.0.1` is `[::ffff:7f00:1]`). */
function asHostname(address: string): string {
  try {
    return new URL(`http://${address.includes(':') ? `[${address}]` : address}/`).hostname
  } catch {
    return address
  }
}
