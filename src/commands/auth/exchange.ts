import {apiFlags, BaseCommand, Flags, profileFlags, type UnsignedDryRun} from '../../cli/base.js'
import {recordRows} from '../../output/record.js'
import {renderRecord} from '../../output/table.js'
import {AUTH_TYPES} from '../../protocol/schemas.js'
import {exchangeAuthCode} from '../../services/auth.js'
import type {AuthResult} from '../../protocol/answers.js'

/**
 * The AuthResult (null with --set: the platform keeps the openId); a dry run, the unsigned
 * request.
 */
export type AuthExchangeResult = AuthResult | null | UnsignedDryRun

export default class AuthExchange extends BaseCommand {
  static summary = 'Exchange an authorization code for the payer\'s openId (POST .../auth, or .../auth-and-set with --set)'
  static description =
    'Unsigned calls answered with an unsigned Result (the spec exempts them from signatures). With --query-code the answer\'s status is waiting until the payer approves, then success; not_exist when the code is unknown or older than 5 minutes. An --auth-token works once. --set keeps the openId in the platform session instead of returning it: a later walletA_jsapi or walletA_mini payment of the same merchant app may leave openId out. The wallet\'s accessToken is shown with --json only.'

  static examples = [
    '<%= config.bin %> auth exchange --auth-code AC123 --query-code Q123',
    '<%= config.bin %> auth exchange --auth-code AC123 --auth-token 5f0c... --set',
  ]

  static flags = {
    ...profileFlags,
    'dry-run': Flags.boolean({description: 'print the request without sending it'}),
    timeout: apiFlags.timeout,
    'auth-code': Flags.string({description: 'the code the wallet issued (or an openId obtained before)', required: true}),
    'query-code': Flags.string({description: 'queryCode from `auth url`, to poll the session'}),
    'auth-token': Flags.string({description: 'authToken from `auth url` or the redirect back (single-use)'}),
    'auth-type': Flags.string({description: 'authorization type', options: [...AUTH_TYPES]}),
    product: Flags.string({description: 'product code (mini programs without a session)'}),
    capability: Flags.string({description: 'capability code (mini programs)'}),
    'channel-app-id': Flags.string({description: 'channel app id'}),
    'access-token': Flags.string({description: 'access token, when the channel returned one directly'}),
    'union-identifier': Flags.string({description: 'walletC app identifier from the user agent'}),
    set: Flags.boolean({description: 'auth-and-set: keep the openId in the platform session, do not return it'}),
  }

  async run(): Promise<AuthExchangeResult> {
    const {flags} = await this.parse(AuthExchange)
    const context = await this.context(flags)
    const fields = {
      authCode: flags['auth-code'],
      queryCode: flags['query-code'],
      authToken: flags['auth-token'],
      authType: flags['auth-type'],
      product: flags.product,
      capability: flags.capability,
      channelAppId: flags['channel-app-id'],
      accessToken: flags['access-token'],
      unionIdentifier: flags['union-identifier'],
    }
    const result = await exchangeAuthCode(context.client, fields, {set: flags.set, dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => {
      if (flags.set) {
        this.notice('authorized: the platform keeps the openId for this merchant app; a later walletA_jsapi or walletA_mini payment may leave openId out')
        return
      }
      const answer = data as Record<string, unknown> | null
      const shown = answer?.accessToken ? {...answer, accessToken: '(hidden; --json shows it)'} : answer
      this.io.out(renderRecord(recordRows(shown), this.io.stdoutTty))
      if (answer?.status === 'waiting') this.notice('the payer has not approved yet: run this again to poll')
      if (answer?.status === 'not_exist') this.notice('the queryCode is unknown or older than 5 minutes: generate a new link with `auth url`')
    })
  }
}
