// The endpoint catalog: path, what the request may carry, and how it may be retried. The
// client sends only declared fields; the sandbox verifies over whatever it received, then
// keeps the declared ones.
import {z} from 'zod'
import {
  allocFields,
  closeFields,
  commonFields,
  payFields,
  pingFields,
  queryAllocFields,
  queryPayFields,
  queryRefundFields,
  refundFields,
  syncPayFields,
  syncRefundFields,
  queryTransferFields,
  transferFields,
} from './schemas.js'
import {authCodeFields, gatewayPrePayFields, generateAuthUrlFields, queryGatewayFields} from './schemas.js'

export interface Endpoint {
  path: string
  /** `create` calls are never resent with a new reqId; `read` calls may be. */
  kind: 'create' | 'read' | 'action'
  fields: z.ZodObject
  /** Defaults the server fills after verifying (absent fields stay out of the string to sign). */
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
  alloc: {path: '/unipay/alloc', kind: 'create', fields: allocFields},
  queryAlloc: {path: '/unipay/query/alloc-order', kind: 'read', fields: queryAllocFields},
  syncAlloc: {path: '/unipay/sync/order/alloc', kind: 'read', fields: queryAllocFields},
  transfer: {path: '/unipay/transfer', kind: 'create', fields: transferFields},
  queryTransfer: {path: '/unipay/query/transfer-order', kind: 'read', fields: queryTransferFields},
  syncTransfer: {path: '/unipay/sync/order/transfer', kind: 'read', fields: queryTransferFields},
  gatewayPrePay: {path: '/unipay/gateway/pre-pay', kind: 'create', fields: gatewayPrePayFields},
  queryGateway: {path: '/unipay/gateway/query', kind: 'read', fields: queryGatewayFields},
  generateAuthUrl: {
    path: '/unipay/assist/channel/auth/generate-auth-url',
    kind: 'create',
    fields: generateAuthUrlFields,
    defaults: {authType: 'walletA'},
  },
} satisfies Record<string, Endpoint>

/** The auth-code endpoints: sent unsigned, answered with an unsigned Result {code, message, data}. */
export interface UnsignedEndpoint {
  path: string
  fields: z.ZodObject
}

export const unsignedEndpoints = {
  auth: {path: '/unipay/assist/channel/auth/auth', fields: authCodeFields},
  authAndSet: {path: '/unipay/assist/channel/auth/auth-and-set', fields: authCodeFields},
} satisfies Record<string, UnsignedEndpoint>

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
