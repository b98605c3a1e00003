import {apiFlags, BaseCommand, type DryRun, Flags} from '../../cli/base.js'
import {openUrl} from '../../cli/open.js'
import {renderPayBody} from '../../output/paybody.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {AUTH_TYPES} from '../../protocol/schemas.js'
import {generateAuthUrl} from '../../services/auth.js'
import type {AuthUrlAnswer} from '../../protocol/answers.js'

/** The authorization session: authUrl, queryCode, authToken; a dry run, the signed request. */
export type AuthUrlResult = AuthUrlAnswer | DryRun

export default class AuthUrl extends BaseCommand {
  static summary = 'Generate a channel authorization link (POST /unipay/assist/channel/auth/generate-auth-url)'
  static description =
    'The payer opens authUrl and approves; the merchant then exchanges the code for the payer\'s openId with `auth exchange` (poll with --query-code, or pass --auth-token after the redirect back). Sessions last 5 minutes; the authToken works once. --auth-type defaults to walletA (and is always sent, since the platform signs its default).'

  static examples = [
    '<%= config.bin %> auth url --open',
    '<%= config.bin %> auth url --channel walletB --auth-type walletB --return-path https://shop.example.com/after-auth --json',
  ]

  static flags = {
    ...apiFlags,
    channel: Flags.string({description: 'channel, e.g. walletA (default: the family of --auth-type)'}),
    'auth-type': Flags.string({description: 'authorization type (default walletA)', options: [...AUTH_TYPES]}),
    product: Flags.string({description: 'product code'}),
    'return-path': Flags.string({description: 'where the payer is sent back after approving (the code and authToken are added)'}),
    capability: Flags.string({description: 'capability code (mini programs)'}),
    qr: Flags.boolean({description: 'also draw authUrl as a QR code, for a phone to scan'}),
    open: Flags.boolean({description: 'open authUrl in the browser'}),
  }

  async run(): Promise<AuthUrlResult> {
    const {flags} = await this.parse(AuthUrl)
    const context = await this.context(flags)
    const fields = {
      channel: flags.channel,
      authType: flags['auth-type'],
      product: flags.product,
      returnPath: flags['return-path'],
      capability: flags.capability,
    }
    const result = await generateAuthUrl(context.client, fields, {dryRun: flags['dry-run']})
    const session = result.response?.data
    const printed = await this.emitCall(result, async (data) => {
      this.io.out(renderRecord(recordRows(data), this.io.stdoutTty))
      if (flags.qr) this.io.out((await renderPayBody('qr_code', String(session?.authUrl), {tty: true, formFile: ''})).text)
      this.notice(`after the payer approves (the page shows the code): ${this.config.bin} auth exchange --auth-code CODE --query-code ${String(session?.queryCode)} --auth-token ${String(session?.authToken)}`)
    })
    if (flags.open && session) {
      const problem = await openUrl(session.authUrl)
      this.notice(problem ? `could not open the browser (${problem}); open ${session.authUrl} yourself` : `opened ${session.authUrl} in the browser`)
    }
    return printed
  }
}
