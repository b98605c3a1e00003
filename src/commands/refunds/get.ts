import {Args, BaseCommand, profileFlags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {findRefund} from '../../services/mch.js'
import type {RefundRecord} from '../../protocol/answers.js'

/** The refund in its management form. */
export type RefundsGetResult = RefundRecord

export default class RefundsGet extends BaseCommand {
  static summary = 'Show one refund in its management form (GET /mch/order/refund/get-by-id)'
  static description =
    'By its record id (the id column of `refunds list`), or by its refundNo or bizRefundNo, found through the refund list (an exact match only). Times are shown "yyyy-MM-dd HH:mm:ss" (GMT+8); --json keeps the platform\'s.'

  static examples = ['<%= config.bin %> refunds get 2000000000000001', '<%= config.bin %> refunds get RF20261124195929A1B2C3D4']
  static args = {id: Args.string({description: 'refund record id, refundNo or bizRefundNo', required: true})}
  static flags = {profile: profileFlags.profile}

  async run(): Promise<RefundsGetResult> {
    const {args, flags} = await this.parse(RefundsGet)
    const {config} = await this.managementContext(flags)
    const record = await findRefund(config, args.id)
    return this.emitAnswer<RefundRecord>(record, () => this.io.out(renderRecord(recordRows(record), this.io.stdoutTty)))
  }
}
