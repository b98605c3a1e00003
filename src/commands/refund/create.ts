import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {amountInCents} from '../../cli/input.js'
import {MAX_PAY_CENTS} from '../../protocol/money.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {createRefund} from '../../services/refund.js'
import type {RefundResult} from '../../protocol/answers.js'

/** The refund as created (RefundResult); a dry run, the signed request. */
export type RefundCreateResult = RefundResult | DryRun

export default class RefundCreate extends BaseCommand {
  static summary = 'Refund a paid order, fully or partly (POST /unipay/refund)'
  static description =
    'The refund starts in progress; its final state arrives by callback (refund.*, to the payment order\'s notifyUrl) or with `refund sync`. --biz-refund-no is generated and printed when omitted: it is the idempotency key, so resending it never refunds twice. Local sandbox test values for --reason: test:fail, test:close, test:slow.'

  static examples = [
    '<%= config.bin %> refund create --biz-order-no P2025112200001 --amount 30 --reason "damaged"',
    '<%= config.bin %> refund create --trade-no T2025112200001 --yuan 0.70 --biz-refund-no R-42',
  ]

  static flags = {
    ...apiFlags,
    'trade-no': Flags.string({description: 'fund trade number of the payment (wins over --biz-order-no)'}),
    'biz-order-no': Flags.string({description: 'merchant order number of the payment'}),
    amount: Flags.string({description: 'refund amount in cents'}),
    yuan: Flags.string({description: 'refund amount in yuan, e.g. 0.30 (instead of --amount)'}),
    reason: Flags.string({description: 'refund reason (at most 50 characters)'}),
    'biz-refund-no': Flags.string({description: 'merchant refund number, the idempotency key (generated when omitted)'}),
    yes: Flags.boolean({description: 'confirm a refund on a production profile without a prompt'}),
  }

  async run(): Promise<RefundCreateResult> {
    const {flags} = await this.parse(RefundCreate)
    const amount = amountInCents(flags, {maxCents: MAX_PAY_CENTS})
    const context = await this.context(flags)
    await this.confirmMoney(context.profile, `refund ${amount} cents`, flags.yes || flags['dry-run'])
    const result = await createRefund(
      context.client,
      {tradeNo: flags['trade-no'], bizOrderNo: flags['biz-order-no'], amount, reason: flags.reason, bizRefundNo: flags['biz-refund-no']},
      {dryRun: flags['dry-run']},
    )
    if (!flags['biz-refund-no'] && result.request.body.bizRefundNo) this.notice(`bizRefundNo: ${String(result.request.body.bizRefundNo)}`)
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
