import {Flags} from '@oclif/core'
import {apiFlags, BaseCommand} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {syncAlloc} from '../../services/alloc.js'

export default class AllocSync extends BaseCommand {
  static summary = 'Ask the platform to re-check an allocation with the channel (POST /unipay/sync/order/alloc)'
  static examples = ['<%= config.bin %> alloc sync --biz-alloc-no AL-42']
  static flags = {
    ...apiFlags,
    'alloc-no': Flags.string({description: 'platform allocation number (wins)'}),
    'biz-alloc-no': Flags.string({description: 'merchant allocation number'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(AllocSync)
    const context = await this.context(flags)
    const result = await syncAlloc(context.client, {allocNo: flags['alloc-no'], bizAllocNo: flags['biz-alloc-no']}, {dryRun: flags['dry-run']})
    await this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
