import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {TRANSFER_CHANNELS} from '../../protocol/schemas.js'
import {syncTransfer} from '../../services/transfer.js'
import type {SyncAnswer} from '../../protocol/answers.js'

/** The transfer's status after the platform asked the channel; a dry run, the signed request. */
export type TransferSyncResult = SyncAnswer | DryRun

export default class TransferSync extends BaseCommand {
  static summary = 'Ask the platform to re-check a transfer with the channel (POST /unipay/sync/order/transfer)'
  static examples = ['<%= config.bin %> transfer sync --transfer-no TR2025...', '<%= config.bin %> transfer sync --biz-transfer-no TF-42 --channel walletB']
  static flags = {
    ...apiFlags,
    'transfer-no': Flags.string({description: 'platform transfer number'}),
    'biz-transfer-no': Flags.string({description: 'merchant transfer number (with --channel)'}),
    channel: Flags.string({description: 'channel of --biz-transfer-no', options: [...TRANSFER_CHANNELS]}),
  }

  async run(): Promise<TransferSyncResult> {
    const {flags} = await this.parse(TransferSync)
    const context = await this.context(flags)
    const result = await syncTransfer(
      context.client,
      {transferNo: flags['transfer-no'], bizTransferNo: flags['biz-transfer-no'], channel: flags.channel},
      {dryRun: flags['dry-run']},
    )
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
