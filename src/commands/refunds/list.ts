import {BaseCommand, Flags, profileFlags} from '../../cli/base.js'
import {tableFlags, tableOptions} from '../../cli/table-flags.js'
import {pagingNotice, REFUND_COLUMNS, REFUND_TABLE, refundTable} from '../../output/refunds.js'
import {renderRows} from '../../output/table.js'
import {listRefunds, REFUND_FILTERS, type RefundFilters} from '../../services/mch.js'
import {describeValues, REFUND_STATUS} from '../../protocol/enums.js'
import type {RefundRecord} from '../../protocol/answers.js'

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const filterFlags = Object.fromEntries(
  REFUND_FILTERS.map((name) => [
    kebab(name),
    Flags.string({
      description: name.startsWith('createTime')
        ? `${name === 'createTimeStart' ? 'created at or after' : 'created at or before'} "yyyy-MM-dd HH:mm:ss" (GMT+8)`
        : name === 'status'
          ? `one of: ${describeValues(REFUND_STATUS)} (the code or the word)`
          : `${['refundNo', 'bizRefundNo', 'tradeNo', 'bizOrderNo'].includes(name) ? 'contains' : 'equals'} (${name})`,
      helpGroup: 'FILTER',
    }),
  ]),
) as Record<string, ReturnType<typeof Flags.string>>

/** The refunds of the page (or of every page with --all, up to --limit); --json prints the platform's total, size and current beside them. */
export type RefundsListResult = RefundRecord[]

export default class RefundsList extends BaseCommand {
  static summary = 'List refunds from the management API (GET /mch/order/refund/page)'
  static description = `Needs \`unipay mch login\` first. One page by default (--page, --size); --all walks every page, --limit stops after that many records. On a terminal, a table that fits its width: the refund, amount, state (in words), its bizOrderNo and, for a failed refund, its errorMsg first (wrapped, never cut; under its row when the numbers leave no room), times in GMT+8 (said in the header). Piped, every column tab-separated, raw values (cents, status codes, times "yyyy-MM-dd HH:mm:ss" GMT+8); --json, the records as the platform sent them, with its total, size and current (with --all, of the last page read).

Columns (for --columns): ${REFUND_COLUMNS.join(', ')}, and any other field the platform sends.`

  static examples = [
    '<%= config.bin %> refunds list --status fail',
    '<%= config.bin %> refunds list --biz-order-no P2025 --all --json',
    '<%= config.bin %> refunds list --create-time-start "2025-11-22 00:00:00" --all --limit 500 --columns bizRefundNo,amount,status | cut -f2',
  ]

  static flags = {
    profile: profileFlags.profile,
    ...filterFlags,
    page: Flags.integer({description: 'page number', min: 1, default: 1}),
    size: Flags.integer({description: 'records per page', min: 1, max: 1000, default: 10}),
    all: Flags.boolean({description: 'walk every page'}),
    limit: Flags.integer({description: 'stop after this many records', min: 1}),
    ...tableFlags,
  }

  async run(): Promise<RefundsListResult> {
    const {flags} = await this.parse(RefundsList)
    const filters = Object.fromEntries(REFUND_FILTERS.map((name) => [name, (flags as Record<string, unknown>)[kebab(name)]])) as RefundFilters
    const result = await listRefunds(filters, flags, async () => (await this.managementContext(flags)).config)
    return this.emitAnswer<RefundRecord[]>(result.records, () => {
      const {headers, rows} = refundTable(result.records, this.io.stdoutTty)
      this.io.out(renderRows(headers, rows, this.io.stdoutTty, {...tableOptions(flags, (m) => this.notice(m)), ...REFUND_TABLE}))
      this.notice(pagingNotice(result.records.length, result.total, flags))
    }, {total: result.total, size: result.size, current: result.current})
  }
}
