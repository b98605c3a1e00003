import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {tableFlags, tableOptions} from '../../cli/table-flags.js'
import {display, status, type Cell} from '../../output/format.js'
import {recordRows} from '../../output/record.js'
import {renderRecord, renderRows} from '../../output/table.js'
import {centsToYuan, yuanToCents} from '../../protocol/money.js'
import {queryAlloc} from '../../services/alloc.js'
import type {AllocOrderAnswer} from '../../protocol/answers.js'

/** Allocation amounts (total and receivers) in the profile's unit: yuan numbers (6, 3.5) or cents; shown as yuan with two decimals. */
function yuan(value: unknown, unit: 'yuan' | 'cents'): string {
  try {
    return unit === 'cents' ? centsToYuan(BigInt(display(value))) : centsToYuan(yuanToCents(display(value)))
  } catch {
    return display(value)
  }
}

/** The allocation with its receivers, amounts in the profile's unit; a dry run, the signed request. */
export type QueryAllocResult = AllocOrderAnswer | DryRun

export default class QueryAlloc extends BaseCommand {
  static summary = 'Show an allocation with per-receiver details (POST /unipay/query/alloc-order)'
  static examples = ['<%= config.bin %> query alloc --biz-alloc-no AL-42']
  static flags = {
    ...apiFlags,
    'alloc-no': Flags.string({description: 'platform allocation number (wins)'}),
    'biz-alloc-no': Flags.string({description: 'merchant allocation number'}),
    ...tableFlags,
  }

  async run(): Promise<QueryAllocResult> {
    const {flags} = await this.parse(QueryAlloc)
    const context = await this.context(flags)
    const {result, unit: amountUnit} = await queryAlloc(context, {home: this.config.dataDir, env: process.env}, {allocNo: flags['alloc-no'], bizAllocNo: flags['biz-alloc-no']}, {dryRun: flags['dry-run']})
    if (amountUnit.warning) this.warning(amountUnit.warning)
    return this.emitCall(result, (data) => {
      const allocation = (data ?? {}) as Record<string, unknown>
      const {unit} = amountUnit
      const rows = recordRows(allocation, ['details']).map(([key, value]): [string, Cell] => (key === 'amount' ? ['amount (yuan)', yuan(allocation.amount, unit)] : [key, value]))
      this.io.out(renderRecord(rows, this.io.stdoutTty))
      const details = Array.isArray(allocation.details) ? (allocation.details as Record<string, unknown>[]) : []
      this.io.out(
        renderRows(
          ['receiverType', 'receiverAccount', 'receiverName', 'amount (yuan)', 'result', 'errorMsg', 'finishTime'],
          details.map((d) => [display(d.receiverType), display(d.receiverAccount), display(d.receiverName), yuan(d.amount, unit), status(d.result), display(d.errorMsg), display(d.finishTime)]),
          this.io.stdoutTty,
          tableOptions(flags, (m) => this.notice(m), ['receiverAccount', 'amount (yuan)', 'result', 'receiverName', 'errorMsg', 'finishTime', 'receiverType']),
        ),
      )
    })
  }
}
