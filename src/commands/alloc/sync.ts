import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {syncAlloc} from '../../services/alloc.js'
import type {SyncAnswer} from '../../protocol/answers.js'

/** The allocation's status after the platform asked the channel; a dry run, the signed request. */
export type AllocSyncResult = SyncAnswer | DryRun

export default class AllocSync extends BaseCommand {
  static summary = 'Ask the platform to re-check an allocation with the channel (POST /unipay/sync/order/alloc)'
  static examples = ['<%= config.bin %> alloc sync --biz-alloc-no AL-42']
  static flags = {
    ...apiFlags,
    'alloc-no': Flags.string({description: 'platform allocation number (wins)'}),
    'biz-alloc-no': Flags.string({description: 'merchant allocation number'}),
  }

  async run(): Promise<AllocSyncResult> {
    const {flags} = await this.parse(AllocSync)
    const context = await this.context(flags)
    const result = await syncAlloc(context.client, {allocNo: flags['alloc-no'], bizAllocNo: flags['biz-alloc-no']}, {dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
