import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {UsageError} from '../../errors.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {createAlloc, parseReceiverSpec, readReceiversFile} from '../../services/alloc.js'
import type {AllocResult} from '../../protocol/answers.js'

/** The split as created (AllocResult); a dry run, the signed request. */
export type AllocCreateResult = AllocResult | DryRun

export default class Alloc extends BaseCommand {
  static summary = 'Split a paid order among bound receivers (POST /unipay/alloc)'
  static description =
    'The order must be paid and created with --allocation; receivers must be bound beforehand (local sandbox: `sandbox receivers bind`). Amounts are yuan with at most 2 decimals; profiles whose platform takes cents set allocAmountUnit=cents (the built-in local profile takes its sandbox merchant\'s unit, and a profile whose unit is not the one the local sandbox reads gets a warning). The split starts processing and ends success, partial or fail (alloc.* callbacks, or `alloc sync`). Local sandbox test value: a receiver account ending in _FAIL is refused.'

  static examples = [
    '<%= config.bin %> alloc --biz-order-no P2025112200001 --receiver MERCHANT_ID:1900000109:6.00:"Shop Ltd" --receiver PERSONAL_OPENID:oUpF8u:4.00',
    '<%= config.bin %> alloc --trade-no T2025112200001 --receivers-file receivers.csv --biz-alloc-no AL-42',
  ]

  static flags = {
    ...apiFlags,
    'trade-no': Flags.string({description: 'fund trade number of the payment (wins over --biz-order-no)'}),
    'biz-order-no': Flags.string({description: 'merchant order number of the payment'}),
    'biz-alloc-no': Flags.string({description: 'merchant allocation number, the idempotency key (generated when omitted)'}),
    receiver: Flags.string({description: 'TYPE:ACCOUNT:AMOUNT[:NAME], amount in yuan (repeat for more)', multiple: true}),
    'receivers-file': Flags.string({description: 'receivers as a JSON array or a CSV with receiverType,receiverAccount,amount,receiverName'}),
    title: Flags.string({description: 'allocation title'}),
    description: Flags.string({description: 'allocation description'}),
    attach: Flags.string({description: 'merchant data returned in the callback'}),
    'notify-url': Flags.string({description: 'where alloc.* callbacks go'}),
    yes: Flags.boolean({description: 'confirm on a production profile without a prompt'}),
  }

  async run(): Promise<AllocCreateResult> {
    const {flags} = await this.parse(Alloc)
    const receivers = [
      ...(flags.receiver ?? []).map((spec, i) => parseReceiverSpec(spec, i)),
      ...(flags['receivers-file'] ? await readReceiversFile(flags['receivers-file']) : []),
    ]
    if (receivers.length === 0) throw new UsageError('invalid input', [{field: 'receiver', message: 'give at least one --receiver or a --receivers-file'}])
    const context = await this.context(flags)
    await this.confirmMoney(context.profile, `split to ${receivers.length} receivers`, flags.yes || flags['dry-run'])
    const {result, unit} = await createAlloc(
      context,
      {home: this.config.dataDir, env: process.env},
      {
        bizAllocNo: flags['biz-alloc-no'],
        tradeNo: flags['trade-no'],
        bizOrderNo: flags['biz-order-no'],
        title: flags.title,
        description: flags.description,
        attach: flags.attach,
        notifyUrl: flags['notify-url'],
        receivers,
      },
      {dryRun: flags['dry-run']},
    )
    if (unit.warning) this.warning(unit.warning)
    if (!flags['biz-alloc-no']) this.notice(`bizAllocNo: ${String(result.request.body.bizAllocNo)}`)
    return this.emitCall(result, (data) => this.io.out(renderRecord(recordRows(data), this.io.stdoutTty)))
  }
}
