// The management console's refund lookups: login, paged lists (one page, or every page up
// to a limit), and a single record.
import {constants, createPublicKey, publicEncrypt} from 'node:crypto'
import {managementCall, type ManagementConfig} from '../client/management.js'
import {TransportError} from '../errors.js'
import type {JsonObject, JsonValue} from '../protocol/json.js'

export async function login(config: ManagementConfig, account: string, password: string): Promise<string> {
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

export interface RefundPage {
  records: JsonObject[]
  total: number
  size: number
  current: number
}

export async function refundPage(config: ManagementConfig, filters: RefundFilters, current: number, size: number): Promise<RefundPage> {
  const answer = await managementCall(config, {
    method: 'GET',
    path: '/mch/order/refund/page',
    auth: true,
    query: {...filters, current: String(current), size: String(size)},
  })
  const data = (answer.data ?? {}) as JsonObject
  const number = (value: JsonValue | undefined) => Number(typeof value === 'object' && value !== null && 'value' in value ? value.value : value)
  return {
    records: (Array.isArray(data.records) ? data.records : []) as JsonObject[],
    total: number(data.total),
    size: number(data.size),
    current: number(data.current),
  }
}

/** Every page from `from`, until the last one or `limit` records. */
export async function allRefunds(
  config: ManagementConfig,
  filters: RefundFilters,
  options: {size: number; limit?: number; onPage?: (page: RefundPage) => void},
): Promise<{records: JsonObject[]; total: number}> {
  const records: JsonObject[] = []
  let total = 0
  for (let current = 1; ; current++) {
    const page = await refundPage(config, filters, current, options.size)
    options.onPage?.(page)
    total = page.total
    records.push(...page.records)
    if (options.limit !== undefined && records.length >= options.limit) return {records: records.slice(0, options.limit), total}
    if (page.records.length < options.size || records.length >= page.total) return {records, total}
  }
}

export async function refundById(config: ManagementConfig, id: string): Promise<JsonObject> {
  const answer = await managementCall(config, {method: 'GET', path: '/mch/order/refund/get-by-id', auth: true, query: {id}})
  return answer.data as JsonObject
}
