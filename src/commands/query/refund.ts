import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {queryRefund} from '../../services/refund.js'
import type {RefundOrderResult} from '../../protocol/answers.js'

/** The refund as the platform records it; a dry run, the signed request. */
export type QueryRefundResult = RefundOrderResult | DryRun

export default class QueryRefund extends BaseCommand {
  static summary = 'Show a refund (POST /unipay/query/refund-order)'
  static description = 'Reads the platform\'s own record; no channel call. --refund-no wins over --biz-refund-no.'
  static examples = ['<%= config.bin %> query refund --biz-refund-no R-42', '<%= config.bin %> query refund --refund-no RF2025... --json']

  static flags = {
    ...apiFlags,
    'refund-no': Flags.string({description: 'platform refund number'}),
    'biz-refund-no': Flags.string({description: 'merchant refund number'}),
  }

  async run(): Promise<QueryRefundResult> {
    const {flags} = await this.parse(QueryRefund)
    const context = await this.context(flags)
    const result = await queryRefund(context.client, {refundNo: flags['refund-no'], bizRefundNo: flags['biz-refund-no']}, {dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
