// The endpoint catalog: path, what the request may carry, and how it may be retried. The
// client sends only declared fields; the sandbox verifies over whatever it received, then
// keeps the declared ones.
import {checkFields, rules, type FieldProblem, type Fields} from './field-rules.js'
import {
  allocFields,
  authCodeFields,
  closeFields,
  commonFields,
  gatewayPrePayFields,
  generateAuthUrlFields,
  payFields,
  pingFields,
  queryAllocFields,
  queryGatewayFields,
  queryPayFields,
  queryRefundFields,
  queryTransferFields,
  refundFields,
  syncPayFields,
  syncRefundFields,
  transferFields,
} from './schemas.js'

/** What the pipeline needs of an endpoint: where, how it may be retried, how to check a body. */
export interface CallEndpoint {
  path: string
  /** `create` calls are never resent with a new reqId; `read` calls may be. */
  kind: 'create' | 'read' | 'action'
  /** Defaults the server fills before rebuilding the string, so the client must send them. */
  defaults?: Record<string, unknown>
  /** The fields the endpoint declares (what the client may send). */
  fieldNames: readonly string[]
  check(body: Record<string, unknown>): FieldProblem[]
  /** What a success carries in `data`: an object (unset), nothing (close), or anything (a path outside the catalog). */
  answerData?: 'none' | 'any'
}

export interface Endpoint extends CallEndpoint {
  fields: Fields
}

/** An endpoint checked by its rules, its declared fields those of its rules. */
function endpoint(entry: Omit<Endpoint, 'check' | 'fieldNames'>): Endpoint {
  return {check: (body) => checkFields(entry.fields, body), fieldNames: Object.keys(entry.fields.shape), ...entry}
}

export const endpoints = {
  pay: endpoint({path: '/unipay/pay', kind: 'create', fields: payFields}),
  close: endpoint({path: '/unipay/close', kind: 'action', fields: closeFields, defaults: {useCancel: false}, answerData: 'none'}),
  syncPay: endpoint({path: '/unipay/sync/order/pay', kind: 'read', fields: syncPayFields}),
  queryPay: endpoint({path: '/unipay/query/pay-order', kind: 'read', fields: queryPayFields}),
  ping: endpoint({path: '/unipay/ping', kind: 'read', fields: pingFields}),
  refund: endpoint({path: '/unipay/refund', kind: 'create', fields: refundFields}),
  queryRefund: endpoint({path: '/unipay/query/refund-order', kind: 'read', fields: queryRefundFields}),
  syncRefund: endpoint({path: '/unipay/sync/order/refund', kind: 'read', fields: syncRefundFields}),
  alloc: endpoint({path: '/unipay/alloc', kind: 'create', fields: allocFields}),
  queryAlloc: endpoint({path: '/unipay/query/alloc-order', kind: 'read', fields: queryAllocFields}),
  syncAlloc: endpoint({path: '/unipay/sync/order/alloc', kind: 'read', fields: queryAllocFields}),
  transfer: endpoint({path: '/unipay/transfer', kind: 'create', fields: transferFields}),
  queryTransfer: endpoint({path: '/unipay/query/transfer-order', kind: 'read', fields: queryTransferFields}),
  syncTransfer: endpoint({path: '/unipay/sync/order/transfer', kind: 'read', fields: queryTransferFields}),
  gatewayPrePay: endpoint({path: '/unipay/gateway/pre-pay', kind: 'create', fields: gatewayPrePayFields}),
  queryGateway: endpoint({path: '/unipay/gateway/query', kind: 'read', fields: queryGatewayFields}),
  generateAuthUrl: endpoint({
    path: '/unipay/assist/channel/auth/generate-auth-url',
    kind: 'create',
    fields: generateAuthUrlFields,
    defaults: {authType: 'walletA'},
  }),
}

/** The auth-code endpoints: sent unsigned, answered with an unsigned Result {code, message, data}. */
export interface UnsignedEndpoint {
  path: string
  fields: Fields
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

const commonOnly = rules.object(commonFields)

/** The catalog entry for a path, or a lenient one (common fields only) for paths not wrapped yet. */
export function endpointForPath(path: string): Endpoint {
  return endpointByPath(path) ?? endpoint({path, kind: 'action', fields: commonOnly, answerData: 'any'})
}
