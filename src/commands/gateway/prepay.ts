import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {amountInCents, readEndpointData, withFlags} from '../../cli/input.js'
import {openUrl} from '../../cli/open.js'
import {UsageError} from '../../errors.js'
import {MAX_PAY_CENTS} from '../../protocol/money.js'
import {renderPayBody} from '../../output/paybody.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {endpoints} from '../../protocol/endpoints.js'
import {GATEWAY_TYPES} from '../../protocol/schemas.js'
import {gatewayPrePay} from '../../services/gateway.js'
import type {GatewayPrePayResult} from '../../protocol/answers.js'

/** The gateway order as created or found (GatewayPrePayResult); a dry run, the signed request. */
export type GatewayPrepayResult = GatewayPrePayResult | DryRun

export default class GatewayPrepay extends BaseCommand {
  static summary = 'Create a gateway order: a hosted cashier or aggregate QR page (POST /unipay/gateway/pre-pay)'
  static description =
    'The platform hosts the payment page. --type cashier lists the payment methods and lets the payer pick one; --type aggregate shows one QR code that every wallet can scan. The answer carries h5Url (for browsers) and miniUrl (for mini-program links); --qr draws h5Url as a QR code, --open opens it in the browser. --biz-order-no is generated when omitted; resending the same one returns the stored order with its effective type. Local sandbox test value: a title containing "test:fail" makes the payment fail on the page.'

  static examples = [
    '<%= config.bin %> gateway prepay --type cashier --title Coffee --amount 100 --open',
    '<%= config.bin %> gateway prepay --type aggregate --title Tea --yuan 12.50 --notify-url https://shop.example.com/notify --qr',
    '<%= config.bin %> gateway prepay --type cashier --title Items --amount 300 --data @goods.json',
  ]

  static flags = {
    ...apiFlags,
    type: Flags.string({description: 'gatewayPayType: cashier (the payer picks a method) or aggregate (one QR for every wallet)', options: [...GATEWAY_TYPES]}),
    'biz-order-no': Flags.string({description: 'merchant order number, the idempotency key (generated when omitted)'}),
    title: Flags.string({description: 'order title shown to the payer (at most 100 characters; required, here or in --data)'}),
    amount: Flags.string({description: 'amount in cents (1 to 9999999999)'}),
    yuan: Flags.string({description: 'amount in yuan, e.g. 12.50 (instead of --amount)'}),
    description: Flags.string({description: 'order description (at most 50 characters)'}),
    currency: Flags.string({description: 'ISO 4217 code, lower case (default cny)'}),
    'notify-url': Flags.string({description: 'where the platform sends callbacks (at most 256 characters)'}),
    'return-url': Flags.string({description: 'where the page sends the payer afterwards (at most 256 characters)'}),
    attach: Flags.string({description: 'merchant data returned as is in callbacks (at most 512 characters)'}),
    'extra-param': Flags.string({description: 'channel-specific parameters as JSON text (at most 2048 characters)'}),
    'expired-time': Flags.string({description: 'expiry, "yyyy-MM-dd HH:mm:ss" GMT+8 (default 30 minutes)'}),
    'store-no': Flags.string({description: 'store number (at most 64 characters)'}),
    allocation: Flags.boolean({description: 'freeze the funds for a later split (alloc)'}),
    data: Flags.string({description: 'more fields as JSON (@file, - for stdin), e.g. goodsDetail; flags win'}),
    qr: Flags.boolean({description: 'also draw h5Url as a QR code (even when piped)'}),
    open: Flags.boolean({description: 'open h5Url in the browser'}),
  }

  async run(): Promise<GatewayPrepayResult> {
    const {flags} = await this.parse(GatewayPrepay)
    const data = readEndpointData(flags.data, endpoints.gatewayPrePay)
    const type = flags.type ?? data.gatewayPayType
    if (type === undefined) throw new UsageError('invalid input', [{field: 'type', message: 'is required: cashier or aggregate'}])
    const fields = withFlags(data, {
      bizOrderNo: flags['biz-order-no'],
      title: flags.title,
      amount: amountInCents(flags, {required: data.amount === undefined, maxCents: MAX_PAY_CENTS}),
      description: flags.description,
      currency: flags.currency,
      gatewayPayType: type,
      notifyUrl: flags['notify-url'],
      returnUrl: flags['return-url'],
      attach: flags.attach,
      extraParam: flags['extra-param'],
      expiredTime: flags['expired-time'],
      storeNo: flags['store-no'],
      allocation: flags.allocation,
    })
    const context = await this.context(flags)
    const result = await gatewayPrePay(context.client, fields, {dryRun: flags['dry-run']})
    const order = result.response?.data
    if (order && order.gatewayType !== type) {
      this.notice(`bizOrderNo ${order.bizOrderNo} already exists as a ${order.gatewayType} order: the stored order is returned`)
    }
    const printed = await this.emitCall(result, async (data) => {
      this.io.out(renderRecord(recordRows(data), this.io.stdoutTty))
      if (!flags.qr) return
      const rendered = await renderPayBody('qr_code', String(order?.h5Url), {tty: true, formFile: ''})
      this.io.out(rendered.text)
      if (rendered.note) this.notice(rendered.note)
    })
    if (flags.open && order) {
      const problem = await openUrl(order.h5Url)
      this.notice(problem ? `could not open the browser (${problem}); open ${order.h5Url} yourself` : `opened ${order.h5Url} in the browser`)
    }
    return printed
  }
}
