// What a payment order gives the payer, by its method (read after pay.ts): an aggregate QR
// page of the sandbox, a wallet's QR text, jsapi parameters, an H5 link, a PC HTML form, app
// parameters, or a barcode payment's trade number.
import {randomBytes} from 'node:crypto'
import type {PayBodyType} from '../protocol/enums.js'
import type {PayRequest} from '../protocol/schemas.js'

/** The payBody and its payBodyType for a new order of `order.method`. */
export function payBody(
  order: {method: string; orderNo: string; channel: string; amount: number; tradeNo: string},
  request: Pick<PayRequest, 'channelAppId'>,
  {now, publicUrl}: {now: () => Date; publicUrl: () => string},
): {payBody: string; payBodyType: PayBodyType} {
  const {method, orderNo, channel} = order
  const host = `https://${channel.toLowerCase()}.sandbox.invalid`
  const kind = method.slice(method.indexOf('_') + 1)
  switch (kind) {
    case 'pay_qrcode':
      return {payBodyType: 'qr_code', payBody: `${publicUrl()}/aggregate/${orderNo}`}
    case 'qr':
      return {payBodyType: 'qr_code', payBody: `${channel}://pay?orderNo=${orderNo}`}
    case 'jsapi':
    case 'mini':
      return {
        payBodyType: 'jsapi',
        payBody: JSON.stringify({
          appId: request.channelAppId ?? `${channel}_sandbox_app`,
          timeStamp: String(Math.floor(now().getTime() / 1000)),
          nonceStr: randomBytes(8).toString('hex'),
          package: `prepay_id=${orderNo}`,
          signType: 'RSA',
          paySign: randomBytes(32).toString('base64'),
        }),
      }
    case 'h5':
    case 'cashier':
      return {payBodyType: 'link', payBody: `${host}/h5/pay?orderNo=${orderNo}`}
    case 'pc':
      return {
        payBodyType: 'from',
        payBody:
          `<form id="pay" name="pay" action="${host}/gateway" method="POST">` +
          `<input type="hidden" name="orderNo" value="${orderNo}"/>` +
          `<input type="hidden" name="amount" value="${order.amount}"/>` +
          `</form><script>document.forms.pay.submit();</script>`,
      }
    case 'app':
      return {payBodyType: 'json', payBody: JSON.stringify({orderNo, channel, prepayId: `app_${orderNo}`})}
    case 'barcode':
      return {payBodyType: 'identifier', payBody: order.tradeNo}
    default:
      return {payBodyType: 'link', payBody: `${host}/pay?orderNo=${orderNo}`}
  }
}
