import {Args} from '@oclif/core'
import {BaseCommand, profileFlags} from '../../cli/base.js'
import {UsageError} from '../../errors.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {refundById} from '../../services/mch.js'
import type {RefundRecord} from '../../protocol/answers.js'

/** The refund in its management form. */
export type RefundsGetResult = RefundRecord

export default class RefundsGet extends BaseCommand {
  static summary = 'Show one refund in its management form (GET /mch/order/refund/get-by-id)'
  static examples = ['<%= config.bin %> refunds get 2000000000000001']
  static args = {id: Args.string({description: 'refund record id (the id column of `refunds list`)', required: true})}
  static flags = {profile: profileFlags.profile}

  async run(): Promise<RefundsGetResult> {
    const {args, flags} = await this.parse(RefundsGet)
    if (!/^\d+$/.test(args.id)) throw new UsageError(`ID must be a number (the id column of \`refunds list\`), got "${args.id}"`)
    const {config} = await this.managementContext(flags)
    const record = await refundById(config, args.id)
    return this.emitAnswer<RefundRecord>(record, () => this.io.out(renderRecord(recordRows(record), this.io.stdoutTty)))
  }
}
