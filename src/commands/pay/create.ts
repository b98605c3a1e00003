import {join} from 'node:path'
import {apiFlags, BaseCommand, Flags, type DryRun} from '../../cli/base.js'
import {amountInCents, readEndpointData, withFlags} from '../../cli/input.js'
import {PAY_METHODS} from '../../protocol/enums.js'
import {endpoints} from '../../protocol/endpoints.js'
import {MAX_PAY_CENTS} from '../../protocol/money.js'
import {createPayment} from '../../services/pay.js'
import type {NormalPayResult} from '../../protocol/answers.js'

/** The order as created (NormalPayResult); a dry run, the signed request. */
export type PayCreateResult = NormalPayResult | DryRun

export default class PayCreate extends BaseCommand {
  static summary = 'Create a payment order (POST /unipay/pay)'
  static description =
    'Signs and sends a payment order, verifies the answer and renders payBody by its type: a QR code in the terminal for qr_code, the link, pretty JSON for jsapi/json, a saved HTML file for a form. Without --method the platform auto-routes (the local sandbox: one aggregate QR for all wallets); with --auth-code and no method the barcode prefix picks the wallet. --biz-order-no is generated when omitted; resending the same one is safe (it is the idempotency key).'

  static examples = [
    '<%= config.bin %> pay create --title Coffee --amount 100',
    '<%= config.bin %> pay create --title Coffee --yuan 12.50 --method walletB_h5 --notify-url https://shop.example.com/notify',
    '<%= config.bin %> pay create --title Scan --amount 100 --auth-code 134567890123456789',
    '<%= config.bin %> pay create --title Items --amount 300 --data @goods.json',
  ]

  static flags = {
    ...apiFlags,
    'biz-order-no': Flags.string({description: 'merchant order number, the idempotency key (generated when omitted)'}),
    title: Flags.string({description: 'order title (at most 100 characters; required, here or in --data)'}),
    amount: Flags.string({description: 'amount in cents (1 to 9999999999)'}),
    yuan: Flags.string({description: 'amount in yuan, e.g. 12.50 (instead of --amount)'}),
    description: Flags.string({description: 'order description (at most 50 characters)'}),
    currency: Flags.string({description: 'ISO 4217 code, lower case (default cny)'}),
    method: Flags.string({description: 'payment method', options: [...PAY_METHODS]}),
    product: Flags.string({description: 'product code'}),
    capability: Flags.string({description: 'capability code'}),
    'open-id': Flags.string({description: 'payer openId for walletA_jsapi / walletA_mini; left out, the platform uses the one `auth exchange --set` stored'}),
    'channel-app-id': Flags.string({description: 'channel app id'}),
    'auth-code': Flags.string({description: 'barcode from the payer\'s wallet (merchant scan)'}),
    'limit-pay': Flags.string({description: 'restricted payment type, e.g. no_credit', multiple: true}),
    'extra-param': Flags.string({description: 'channel-specific parameters as JSON text'}),
    'notify-url': Flags.string({description: 'where the platform sends callbacks'}),
    'return-url': Flags.string({description: 'where the payer returns after paying'}),
    attach: Flags.string({description: 'merchant data returned as is in callbacks'}),
    'expired-time': Flags.string({description: 'expiry, "yyyy-MM-dd HH:mm:ss" GMT+8 (default 30 minutes)'}),
    allocation: Flags.boolean({description: 'freeze the funds for a later split (alloc)'}),
    data: Flags.string({description: 'more fields as JSON (@file, - for stdin): goodsDetail, terminal, ...; flags win'}),
    'form-file': Flags.string({description: 'where to save an HTML form payBody (default: the data folder)'}),
  }

  async run(): Promise<PayCreateResult> {
    const {flags} = await this.parse(PayCreate)
    const data = readEndpointData(flags.data, endpoints.pay)
    const fields = withFlags(data, {
      bizOrderNo: flags['biz-order-no'],
      title: flags.title,
      amount: amountInCents(flags, {required: data.amount === undefined, maxCents: MAX_PAY_CENTS}),
      description: flags.description,
      currency: flags.currency,
      method: flags.method,
      product: flags.product,
      capability: flags.capability,
      openId: flags['open-id'],
      channelAppId: flags['channel-app-id'],
      authCode: flags['auth-code'],
      limitPay: flags['limit-pay'],
      extraParam: flags['extra-param'],
      notifyUrl: flags['notify-url'],
      returnUrl: flags['return-url'],
      attach: flags.attach,
      expiredTime: flags['expired-time'],
      allocation: flags.allocation,
    })
    const context = await this.context(flags)
    const result = await createPayment(context.client, fields, {dryRun: flags['dry-run']})
    return this.emitCall(result, async (data) => {
      // the renderers load only for a person's output: --json and dry runs never need them
      const [{renderPayBody}, {recordRows}, {renderRecord}] = await Promise.all([import('../../output/paybody.js'), import('../../output/record.js'), import('../../output/table.js')])
      const order = data as Record<string, unknown>
      this.io.out(renderRecord(recordRows(order, ['payBody']), this.io.stdoutTty))
      const payBody = typeof order.payBody === 'string' ? order.payBody : ''
      if (!payBody) return
      const formFile = flags['form-file'] ?? join(this.config.dataDir, `form-${String(order.orderNo)}.html`)
      const rendered = await renderPayBody(String(order.payBodyType), payBody, {tty: this.io.stdoutTty, formFile})
      this.io.out(rendered.text)
      if (rendered.note) this.notice(rendered.note)
    })
  }
}
