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
import {authCodeFields, checkFields, gatewayPrePayFields, generateAuthUrlFields, queryGatewayFields} from './schemas.js'
import {fastEndpoints, type CallEndpoint} from './field-rules.js'

export interface Endpoint extends CallEndpoint {
  fields: z.ZodObject
}

/** An endpoint checked by its zod schema, its declared fields those of the schema. */
function fromSchema(entry: Omit<Endpoint, 'check' | 'fieldNames'>): Endpoint {
  return {check: (body) => checkFields(entry.fields, body), fieldNames: Object.keys(entry.fields.shape), ...entry}
}

/** Each endpoint checks a body with its zod schema, unless it has fast rules (and a field list) of its own. */
function withChecks<T extends Record<string, Omit<Endpoint, 'check' | 'fieldNames'> & Partial<Pick<Endpoint, 'check' | 'fieldNames'>>>>(catalog: T): {[K in keyof T]: T[K] & Endpoint} {
  const out: Record<string, Endpoint> = {}
  for (const [name, entry] of Object.entries(catalog)) out[name] = fromSchema(entry)
  return out as {[K in keyof T]: T[K] & Endpoint}
}

export const endpoints = withChecks({
  pay: {...fastEndpoints.pay, fields: payFields},
  close: {path: '/unipay/close', kind: 'action', fields: closeFields, defaults: {useCancel: false}, answerData: 'none'},
  syncPay: {path: '/unipay/sync/order/pay', kind: 'read', fields: syncPayFields},
  queryPay: {...fastEndpoints.queryPay, fields: queryPayFields},
  ping: {path: '/unipay/ping', kind: 'read', fields: pingFields},
  refund: {path: '/unipay/refund', kind: 'create', fields: refundFields},
  queryRefund: {path: '/unipay/query/refund-order', kind: 'read', fields: queryRefundFields},
  syncRefund: {path: '/unipay/sync/order/refund', kind: 'read', fields: syncRefundFields},
  alloc: {path: '/unipay/alloc', kind: 'create', fields: allocFields},
  queryAlloc: {path: '/unipay/query/alloc-order', kind: 'read', fields: queryAllocFields},
  syncAlloc: {path: '/unipay/sync/order/alloc', kind: 'read', fields: queryAllocFields},
  transfer: {...fastEndpoints.transfer, fields: transferFields},
  queryTransfer: {...fastEndpoints.queryTransfer, fields: queryTransferFields},
  syncTransfer: {path: '/unipay/sync/order/transfer', kind: 'read', fields: queryTransferFields},
  gatewayPrePay: {path: '/unipay/gateway/pre-pay', kind: 'create', fields: gatewayPrePayFields},
  queryGateway: {path: '/unipay/gateway/query', kind: 'read', fields: queryGatewayFields},
  generateAuthUrl: {
    path: '/unipay/assist/channel/auth/generate-auth-url',
    kind: 'create',
    fields: generateAuthUrlFields,
    defaults: {authType: 'walletA'},
  },
})

/** The auth-code endpoints: sent unsigned, answered with an unsigned Result {code, message, data}. */
export interface UnsignedEndpoint {
  path: string
  fields: z.ZodObject
  check: CallEndpoint['check']
}

export const unsignedEndpoints = {
  auth: {path: '/unipay/assist/channel/auth/auth', fields: authCodeFields, check: (body) => checkFields(authCodeFields, body)},
  authAndSet: {path: '/unipay/assist/channel/auth/auth-and-set', fields: authCodeFields, check: (body) => checkFields(authCodeFields, body)},
} satisfies Record<string, UnsignedEndpoint>

function endpointByPath(path: string): Endpoint | undefined {
  return Object.values(endpoints).find((endpoint) => endpoint.path === path)
}

/** The fields an endpoint declares (the sandbox keeps these once the signature holds). */
export function declaredFields(endpoint: Endpoint): readonly string[] {
  return endpoint.fieldNames
}

/** The catalog entry for a path, or a lenient one (common fields only) for paths not wrapped yet. */
export function endpointForPath(path: string): Endpoint {
  const fields = z.looseObject({...commonFields})
  return endpointByPath(path) ?? fromSchema({path, kind: 'action', fields, answerData: 'any'})
}
