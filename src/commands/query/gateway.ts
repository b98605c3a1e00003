import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {queryGateway} from '../../services/gateway.js'
import type {GatewayOrderResult} from '../../protocol/answers.js'

/** The gateway order as the platform records it; a dry run, the signed request. */
export type QueryGatewayResult = GatewayOrderResult | DryRun

export default class QueryGateway extends BaseCommand {
  static summary = 'Show a gateway order (POST /unipay/gateway/query)'
  static description =
    'Reads the platform\'s own record: status (wait_pay, paying, paid, failed, closed, expired), the wallet and method the payer chose, fundStatus. --order-no wins over --biz-order-no.'

  static examples = ['<%= config.bin %> query gateway --order-no GW20251122103000000001', '<%= config.bin %> query gateway --biz-order-no G2025112200001 --json']

  static flags = {
    ...apiFlags,
    'order-no': Flags.string({description: 'platform gateway order number, or its trade number (at most 64 characters)'}),
    'biz-order-no': Flags.string({description: 'merchant order number'}),
  }

  async run(): Promise<QueryGatewayResult> {
    const {flags} = await this.parse(QueryGateway)
    const context = await this.context(flags)
    const result = await queryGateway(context.client, {orderNo: flags['order-no'], bizOrderNo: flags['biz-order-no']}, {dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
