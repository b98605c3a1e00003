// Who may change the sandbox's state outside the signed API. Control calls (/_sandbox/*) come
// from the CLI: they carry the per-start secret, a JSON body, no foreign Origin and the
// sandbox's own Host (a rebound DNS name gets a foreign Host). Page forms (cashier, auth,
// transfer confirm, epay page, dashboard) come from a browser on the sandbox's own pages: one
// same-origin check, `pagePostRefusal`, guards every one of them against cross-site posts.
import {timingSafeEqual} from 'node:crypto'
import type {IncomingHttpHeaders} from 'node:http'
import {lookup} from 'node:dns/promises'
import {hostname as machineName, networkInterfaces} from 'node:os'
import {httpUrlProblem, isThisMachine, resolvesToThisMachine, type ThisMachine} from '../protocol/addresses.js'
import {CONTROL_SECRET_HEADER} from '../protocol/local-sandbox.js'
import {fail} from './errors.js'

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

/**
 * The Host values the sandbox answers to: its loopback names with its port. Undefined when it
 * listens beyond loopback (a container's name is not known here); the control secret and the
 * Origin-versus-Host check then carry the protection.
 */
export function ownHosts(publicUrl: string): Set<string> | undefined {
  const {hostname, port} = new URL(publicUrl)
  if (!LOOPBACK_NAMES.includes(hostname) && !hostname.startsWith('127.')) return undefined
  return new Set([...LOOPBACK_NAMES, hostname].map((name) => `${name}:${port}`))
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

export function hostRefusal(headers: IncomingHttpHeaders, hosts: Set<string> | undefined): string | undefined {
  const host = (header(headers, 'host') ?? '').toLowerCase()
  if (hosts && !hosts.has(host)) return `Host ${host || '(none)'} is not this sandbox's address`
  return undefined
}

/** A browser's Origin must be this very server (the Host it was reached by); tools send none. */
function originRefusal(headers: IncomingHttpHeaders): string | undefined {
  const origin = header(headers, 'origin')
  if (origin === undefined) return undefined
  if (origin !== `http://${header(headers, 'host') ?? ''}`) return `cross-origin request from ${origin} refused`
  return undefined
}

/** Why a state-changing page POST is refused, or undefined when it comes from the sandbox's own page. */
export function pagePostRefusal(headers: IncomingHttpHeaders, hosts: Set<string> | undefined): string | undefined {
  const fetchSite = header(headers, 'sec-fetch-site')
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return `cross-site form post (${fetchSite}) refused`
  return hostRefusal(headers, hosts) ?? originRefusal(headers)
}

/** Why a control call is refused, or undefined when it may go on. */
export function controlRefusal(method: string, headers: IncomingHttpHeaders, secret: string, hosts: Set<string> | undefined, hasBody: boolean): string | undefined {
  const given = Buffer.from(header(headers, CONTROL_SECRET_HEADER) ?? '')
  const expected = Buffer.from(secret)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return `missing or wrong ${CONTROL_SECRET_HEADER} header (the secret is in the sandbox's runtime file)`
  }
  const refusal = hostRefusal(headers, hosts) ?? originRefusal(headers)
  if (refusal) return refusal
  if (method !== 'GET' && hasBody && !/^application\/json\s*(;|$)/i.test(header(headers, 'content-type') ?? '')) {
    return 'control calls take a JSON body (content-type: application/json)'
  }
  return undefined
}

/** Paths of the pages whose forms change state. */
export const STATE_CHANGING_PAGES = /^\/(cashier|aggregate|cm|am|auth|transfer\/confirm|epay\/pay|dashboard)(\/|$)/

/** This machine's name and addresses, asked when a URL names a sandbox listening on every address. */
const machine = (): ThisMachine => ({
  name: machineName(),
  addresses: Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => (i.family === 'IPv6' ? `[${i.address}]` : i.address))),
})

/** A URL at the sandbox's own port, and its host's name when only a lookup can say whether it is this machine. */
function atOwnPort(value: string, own: URL): URL | undefined {
  if (httpUrlProblem(value)) return undefined
  const url = new URL(value)
  return (url.port || (url.protocol === 'https:' ? '443' : '80')) === own.port ? url : undefined
}

/**
 * Why an address the sandbox will call (notifyUrl) or send a browser to (returnUrl) is refused:
 * one the platform would not call (addresses.ts), or the sandbox itself (its callbacks would post
 * into its own pages and its dashboard would show what they answered), by its address or, in
 * `namesHere`, by a name that resolves to this machine.
 */
export function urlRefusal(value: string, publicUrl: string, namesHere?: ReadonlySet<string>): string | undefined {
  const problem = httpUrlProblem(value)
  if (problem) return problem
  const own = new URL(publicUrl)
  const url = atOwnPort(value, own)
  if (url && (isThisMachine(url.hostname, own.hostname.toLowerCase(), machine) || namesHere?.has(url.hostname))) return `must not point at the sandbox itself (${own.host})`
  return undefined
}

/**
 * The host names among these URLs that lead back to the sandbox: at its port, and resolving to
 * this machine (an /etc/hosts alias, the machine's name), looked up in about a second at most.
 * Undefined when no URL needs a lookup (most calls: no await for them).
 */
export function namesOfThisMachine(values: unknown[], publicUrl: string): Promise<Set<string>> | undefined {
  const own = new URL(publicUrl)
  const listening = own.hostname.toLowerCase()
  const names = new Set<string>()
  for (const value of values) {
    const url = typeof value === 'string' ? atOwnPort(value, own) : undefined
    if (url && !isThisMachine(url.hostname, listening, machine)) names.add(url.hostname)
  }
  if (names.size === 0) return undefined
  return Promise.all([...names].map(async (name) => ((await resolvesToThisMachine(name, listening, lookup, machine)) ? name : undefined))).then(
    (found) => new Set(found.filter((name): name is string => name !== undefined)),
  )
}

/** The `...Url` fields of a request, the ones the sandbox may call or show. */
export const urlFields = (fields: Record<string, unknown>): unknown[] => Object.keys(fields).filter((field) => field.endsWith('Url')).map((field) => fields[field])

/** Refuses (10506, naming the field) a request whose `...Url` fields the sandbox may not call or show. */
export function refuseOwnUrls(fields: Record<string, unknown>, publicUrl: string, namesHere?: ReadonlySet<string>): void {
  for (const field of Object.keys(fields)) {
    const value = fields[field]
    if (!field.endsWith('Url') || typeof value !== 'string') continue
    const refusal = urlRefusal(value, publicUrl, namesHere)
    if (refusal) fail(10506, `${field}: ${refusal}`)
  }
}
