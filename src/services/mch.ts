// The management console's refund lookups: login, paged lists (one page, or every page up
// to a limit), and a single record.
import {constants, createPublicKey, publicEncrypt} from 'node:crypto'
import {managementCall, SessionError, type ManagementConfig} from '../client/management.js'
import {PlatformError, TransportError, UsageError} from '../errors.js'
import {describeValues, matchValue, REFUND_STATUS} from '../protocol/enums.js'
import type {RefundRecord} from '../protocol/answers.js'
import {toPlain, type JsonObject, type JsonValue} from '../protocol/json.js'
import {parseGmt8} from '../protocol/time.js'
import type {ProfileStore} from '../profiles/store.js'
import {storeToken} from './profiles.js'

/** `mch login`: logs in and keeps the session token in the profile (never returned). */
export async function startSession(config: ManagementConfig, store: ProfileStore, profile: string, account: string, password: string): Promise<void> {
  await storeToken(store, profile, await login(config, account, password))
}

async function login(config: ManagementConfig, account: string, password: string): Promise<string> {
  const keyAnswer = await managementCall(config, {method: 'GET', path: '/token/public-key'})
  let publicKey
  try {
    publicKey = createPublicKey({key: Buffer.from(String(keyAnswer.data), 'base64'), format: 'der', type: 'spki'})
  } catch {
    throw new TransportError('the platform\'s login public key is not an RSA key')
  }
  const encrypted = publicEncrypt({key: publicKey, padding: constants.RSA_PKCS1_PADDING}, Buffer.from(password, 'utf8')).toString('base64')
  const answer = await managementCall(config, {
    method: 'POST',
    path: '/token/login',
    form: {account, password: encrypted, loginType: 'password', client: 'merchant'},
  })
  if (typeof answer.data !== 'string' || answer.data === '') throw new TransportError('the login answer carries no token')
  return answer.data
}

export const REFUND_FILTERS = [
  'mchNo', 'appId', 'refundNo', 'bizRefundNo', 'tradeNo', 'tradeType', 'bizOrderNo', 'status', 'product', 'storeNo',
  'createTimeStart', 'createTimeEnd',
] as const
export type RefundFilters = Partial<Record<(typeof REFUND_FILTERS)[number], string>>

/**
 * The filters as the management API takes them, from what the user typed: a time must be
 * `yyyy-MM-dd HH:mm:ss` (GMT+8), a status its code or the word screens show (`failed`).
 */
function refundFilters(given: RefundFilters): RefundFilters {
  const filters: RefundFilters = {}
  for (const name of REFUND_FILTERS) {
    const value = given[name]
    if (value === undefined) continue
    if (name.startsWith('createTime') && !parseGmt8(value)) {
      throw new UsageError('invalid input', [{field: name, message: 'must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'}])
    }
    if (name !== 'status') filters[name] = value
    else {
      filters.status = matchValue(value, REFUND_STATUS)
      if (!filters.status) throw new UsageError('invalid input', [{field: name, message: `"${value}" is not one of: ${describeValues(REFUND_STATUS)}`}])
    }
  }
  return filters
}

interface RefundPage {
  records: JsonObject[]
  total: number
  size: number
  current: number
}

async function refundPage(config: ManagementConfig, filters: RefundFilters, current: number, size: number): Promise<RefundPage> {
  const answer = await managementCall(config, {
    method: 'GET',
    path: '/mch/order/refund/page',
    auth: true,
    query: {...filters, current: String(current), size: String(size)},
  })
  const data = (answer.data ?? {}) as JsonObject
  const number = (value: JsonValue | undefined) => Number(text(value))
  return {
    records: (Array.isArray(data.records) ? data.records : []) as JsonObject[],
    total: number(data.total),
    size: number(data.size),
    current: number(data.current),
  }
}

/**
 * `refunds list`: the filters checked, and only then `connect` asked for the management API
 * (on the local profile it starts the sandbox: bad input starts nothing); then one page
 * (`page`), or with `all` every page until the last one, at most `limit` records either way.
 * `total`, `size` and `current` are the platform's: its count of matches and the page (with
 * `all`, the last page) it answered.
 */
export async function listRefunds(
  given: RefundFilters,
  options: {page: number; size: number; all?: boolean; limit?: number},
  connect: () => Promise<ManagementConfig>,
): Promise<RefundPage> {
  const filters = refundFilters(given)
  const config = await connect()
  if (options.all) return allRefunds(config, filters, options)
  const page = await refundPage(config, filters, options.page, options.size)
  return {...page, records: page.records.slice(0, options.limit)}
}

/** Every page from the first, until the last one or `limit` records; the paging numbers of the last page read. */
export async function allRefunds(config: ManagementConfig, filters: RefundFilters, options: {size: number; limit?: number}): Promise<RefundPage> {
  const records: JsonObject[] = []
  let last: RefundPage | undefined
  for await (const page of refundPages(config, filters, options.size)) {
    last = page
    records.push(...page.records)
    if (options.limit !== undefined && records.length >= options.limit) return {...page, records: records.slice(0, options.limit)}
  }
  return {...last!, records}
}

/** Every page from the first to the last, one at a time (a window of a million refunds is never held whole). */
export async function* refundPages(config: ManagementConfig, filters: RefundFilters, size: number): AsyncGenerator<RefundPage> {
  let seen = 0
  for (let current = 1; ; current++) {
    const page = await refundPage(config, filters, current, size)
    seen += page.records.length
    yield page
    // a short page is the last, by the size the platform answered with (it may cap the one asked for)
    if (page.records.length < (page.size > 0 ? page.size : size) || seen >= page.total) return
  }
}

/**
 * The refunds whose `field` is `value` exactly, of every page: the page's filters match a part
 * of the number (`P1` finds `P10` too), so only exact matches are kept. `also`: more filters.
 */
export async function exactRefunds(config: ManagementConfig, wanted: Partial<Record<'bizOrderNo' | 'bizRefundNo' | 'status', string>>): Promise<RefundRecord[]> {
  const exact: RefundRecord[] = []
  for await (const page of refundPages(config, wanted, 100)) {
    for (const record of page.records) if (Object.entries(wanted).every(([name, value]) => text(record[name]) === value)) exact.push(toPlain(record) as RefundRecord)
  }
  return exact
}

async function refundById(config: ManagementConfig, id: string): Promise<JsonObject> {
  const answer = await managementCall(config, {method: 'GET', path: '/mch/order/refund/get-by-id', auth: true, query: {id}})
  return answer.data as JsonObject
}

/**
 * A refund by its record id, or by its refundNo or bizRefundNo, the numbers support staff are
 * given: the page's substring filters find candidates, and only an exact match counts. An id
 * the platform does not know may still be a number made of digits.
 */
export async function findRefund(config: ManagementConfig, key: string): Promise<JsonObject> {
  let byId: PlatformError | undefined
  if (/^\d+$/.test(key)) {
    try {
      return await refundById(config, key)
    } catch (error) {
      if (!(error instanceof PlatformError) || error instanceof SessionError || error.code === 403) throw error
      byId = error
    }
  }
  for (const field of ['refundNo', 'bizRefundNo'] as const) {
    const page = await refundPage(config, {[field]: key}, 1, 100)
    const exact = page.records.filter((record) => text(record[field]) === key)
    if (exact.length === 1) return exact[0]
    if (exact.length > 1) {
      throw new UsageError(`${exact.length} refunds have ${field} ${key} (of different orders): give the id, one of ${exact.map((r) => text(r.id)).join(', ')}`)
    }
  }
  if (byId) throw byId
  throw new UsageError(`no refund has the refundNo or bizRefundNo ${key}; \`unipay refunds list --biz-refund-no PART\` finds it by a part of its number`)
}

const text = (value: JsonValue | undefined) => (typeof value === 'object' && value !== null && 'value' in value ? String(value.value) : String(value ?? ''))
