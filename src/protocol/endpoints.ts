// The endpoint catalog: path, what the request may carry, and how it may be retried. The
// client sends only declared fields; the sandbox rebuilds the string to sign from them.
import {z} from 'zod'
import {
  closeFields,
  commonFields,
  payFields,
  pingFields,
  queryPayFields,
  queryRefundFields,
  refundFields,
  syncPayFields,
  syncRefundFields,
} from './schemas.js'

export interface Endpoint {
  path: string
  /** `create` calls are never resent with a new reqId; `read` calls may be. */
  kind: 'create' | 'read' | 'action'
  fields: z.ZodObject
  /** Defaults the server fills before rebuilding the string, so the client must send them. */
  defaults?: Record<string, unknown>
}

export const endpoints = {
  pay: {path: '/unipay/pay', kind: 'create', fields: payFields},
  close: {path: '/unipay/close', kind: 'action', fields: closeFields, defaults: {useCancel: false}},
  syncPay: {path: '/unipay/sync/order/pay', kind: 'read', fields: syncPayFields},
  queryPay: {path: '/unipay/query/pay-order', kind: 'read', fields: queryPayFields},
  ping: {path: '/unipay/ping', kind: 'read', fields: pingFields},
  refund: {path: '/unipay/refund', kind: 'create', fields: refundFields},
  queryRefund: {path: '/unipay/query/refund-order', kind: 'read', fields: queryRefundFields},
  syncRefund: {path: '/unipay/sync/order/refund', kind: 'read', fields: syncRefundFields},
} satisfies Record<string, Endpoint>

export type EndpointName = keyof typeof endpoints

export function endpointByPath(path: string): Endpoint | undefined {
  return Object.values(endpoints).find((endpoint) => endpoint.path === path)
}

export function declaredFields(endpoint: Endpoint): string[] {
  return Object.keys(endpoint.fields.shape)
}

/** The catalog entry for a path, or a lenient one (common fields only) for paths not wrapped yet. */
export function endpointForPath(path: string): Endpoint {
  return endpointByPath(path) ?? {path, kind: 'action', fields: z.looseObject({...commonFields})}
}
