import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {TRANSFER_CHANNELS} from '../../protocol/schemas.js'
import {queryTransfer} from '../../services/transfer.js'
import type {TransferOrderResult} from '../../protocol/answers.js'

/** The transfer as the platform records it; a dry run, the signed request. */
export type QueryTransferResult = TransferOrderResult | DryRun

export default class QueryTransfer extends BaseCommand {
  static summary = 'Show a transfer (POST /unipay/query/transfer-order)'
  static examples = ['<%= config.bin %> query transfer --transfer-no TR2025...', '<%= config.bin %> query transfer --biz-transfer-no TF-42 --channel walletB']
  static flags = {
    ...apiFlags,
    'transfer-no': Flags.string({description: 'platform transfer number'}),
    'biz-transfer-no': Flags.string({description: 'merchant transfer number (with --channel)'}),
    channel: Flags.string({description: 'channel of --biz-transfer-no', options: [...TRANSFER_CHANNELS]}),
  }

  async run(): Promise<QueryTransferResult> {
    const {flags} = await this.parse(QueryTransfer)
    const context = await this.context(flags)
    const result = await queryTransfer(
      context.client,
      {transferNo: flags['transfer-no'], bizTransferNo: flags['biz-transfer-no'], channel: flags.channel},
      {dryRun: flags['dry-run']},
    )
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
