import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {amountInCents} from '../../cli/input.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {MAX_TRANSFER_CENTS} from '../../protocol/money.js'
import {TRANSFER_CHANNELS, TRANSFER_PAYEE_TYPES} from '../../protocol/schemas.js'
import {reportInfosFromPairs, transfer} from '../../services/transfer.js'
import type {TransferCreateResult} from '../../protocol/answers.js'

/** The transfer as created (TransferCreateResult); a dry run, the signed request. */
export type TransferResult = TransferCreateResult | DryRun

export default class Transfer extends BaseCommand {
  static summary = 'Transfer from the merchant balance to a payee (POST /unipay/transfer)'
  static description =
    'Checked before sending: payee types per channel (walletA openid; walletB user_id/open_id/login_name; walletD openid/phone), walletA payee names (empty below 0.30 yuan, required from 2000 yuan), lengths and limits. --biz-transfer-no is the idempotency key (generated when omitted): a repeat is refused unless the earlier one failed, which is then reused. walletA transfers wait in processing for the payee to open confirmUrl. Local sandbox test values: a payee account ending in _refused fails at once, _fails_later fails after processing.'

  static examples = [
    '<%= config.bin %> transfer --channel walletB --payee-type user_id --payee-account 2088123456 --amount 100 --title Bonus',
    '<%= config.bin %> transfer --channel walletA --payee-type openid --payee-account oUpF8u --yuan 2500 --payee-name "Li Lei"',
  ]

  static flags = {
    ...apiFlags,
    channel: Flags.string({description: 'channel', options: [...TRANSFER_CHANNELS], required: true}),
    'channel-mch-no': Flags.string({description: 'channel merchant number (default: the profile\'s)'}),
    'biz-transfer-no': Flags.string({description: 'merchant transfer number, the idempotency key (generated when omitted)'}),
    amount: Flags.string({description: 'amount in cents (1 to 10000000000)'}),
    yuan: Flags.string({description: 'amount in yuan (instead of --amount)'}),
    title: Flags.string({description: 'title'}),
    reason: Flags.string({description: 'reason or remark'}),
    'payee-type': Flags.string({description: 'payee account type', options: [...TRANSFER_PAYEE_TYPES], required: true}),
    'payee-account': Flags.string({description: 'payee account', required: true}),
    'payee-name': Flags.string({description: 'payee real name (walletA rules by amount)'}),
    attach: Flags.string({description: 'merchant data returned in the callback'}),
    'notify-url': Flags.string({description: 'where transfer.* callbacks go'}),
    'transfer-scene': Flags.string({description: 'scene for walletB / walletD'}),
    'report-info': Flags.string({description: 'walletA scene report, TYPE=CONTENT (repeatable)', multiple: true}),
    yes: Flags.boolean({description: 'confirm on a production profile without a prompt'}),
  }

  async run(): Promise<TransferResult> {
    const {flags} = await this.parse(Transfer)
    const amount = amountInCents(flags, {maxCents: MAX_TRANSFER_CENTS})
    const reportInfos = reportInfosFromPairs(flags['report-info'])
    const context = await this.context(flags)
    const fields = {
      channel: flags.channel,
      channelMchNo: flags['channel-mch-no'],
      bizTransferNo: flags['biz-transfer-no'],
      amount,
      title: flags.title,
      reason: flags.reason,
      payeeType: flags['payee-type'],
      payeeAccount: flags['payee-account'],
      payeeName: flags['payee-name'],
      attach: flags.attach,
      notifyUrl: flags['notify-url'],
      transferScene: flags['transfer-scene'],
      reportInfos,
    }
    const result = await transfer(context, fields, {
      dryRun: flags['dry-run'],
      confirm: () => this.confirmMoney(context.profile, `transfer ${amount} cents to ${flags['payee-account']}`, flags.yes),
    })
    if (!flags['biz-transfer-no']) this.notice(`bizTransferNo: ${String(result.request.body.bizTransferNo)}`)
    return this.emitCall(result, (data) => {
      this.io.out(renderRecord(recordRows(data), this.io.stdoutTty))
      const confirmUrl = (data as Record<string, unknown> | null)?.confirmUrl
      if (confirmUrl) this.notice(`the payee accepts at: ${String(confirmUrl)}`)
    })
  }
}
