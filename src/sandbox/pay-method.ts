// Which method a payment request asks for (read after pay.ts): the one it names, one inferred
// from its capability, a wallet's barcode by the authCode's prefix, or the aggregate QR.
import {PAY_METHODS, walletFromBarcode} from '../protocol/enums.js'
import type {PayRequest} from '../protocol/schemas.js'
import {fail} from './errors.js'

/**
 * "When channelMchNo and capability are specified, method can be inferred from capability"
 * (spec): a capability naming a PayMethodEnum value is the method. Done before the field
 * checks, so that the inferred method's own rules (openId, authCode) apply.
 */
export function inferMethodFromCapability(body: Record<string, unknown>): void {
  if (body.method || typeof body.capability !== 'string' || !body.channelMchNo) return
  if (!(PAY_METHODS as readonly string[]).includes(body.capability)) {
    fail(10506, `capability: ${body.capability} names no PayMethodEnum value, so no method can be inferred from it; give method`)
  }
  body.method = body.capability
}

/** Method from the request: explicit, from the barcode prefix, or auto-routed to aggregate QR. */
export function resolveMethod(request: PayRequest): string {
  if (request.method) return request.method
  if (request.authCode) {
    const wallet = walletFromBarcode(request.authCode)
    return wallet ? `${wallet}_barcode` : fail(10506, 'authCode: unknown barcode prefix')
  }
  return 'aggregate_pay_qrcode'
}
