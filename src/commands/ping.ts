import {apiFlags, BaseCommand, type DryRun} from '../cli/base.js'
import {renderRecord} from '../output/table.js'
import {compareStrings} from '../protocol/diagnose.js'
import {ping} from '../services/pay.js'
import type {PingAnswer} from '../protocol/answers.js'

/** The server's own string to sign beside its view of the caller (PingAnswer); a dry run, the signed request. */
export type PingResult = PingAnswer | DryRun

export default class Ping extends BaseCommand {
  static summary = 'Check credentials and signing against the platform (POST /unipay/ping)'
  static description =
    'Sends a signed request with the common fields only and shows the server\'s own string to sign beside ours, so a signing difference is visible at once.'

  static examples = ['<%= config.bin %> ping', '<%= config.bin %> ping --profile production --json']
  static flags = {...apiFlags}

  async run(): Promise<PingResult> {
    const {flags} = await this.parse(Ping)
    const context = await this.context(flags)
    const result = await ping(context.client, {dryRun: flags['dry-run']})
    return this.emitCall(result, (data) => {
      const answer = data as Record<string, unknown>
      const ours = result.request.canonicalString
      const theirs = String(answer.serverSignStr ?? '')
      const {differences} = compareStrings(ours, theirs)
      this.io.out(
        renderRecord(
          [
            ['mchNo', String(answer.mchNo ?? '')],
            ['appId', `${String(answer.appId ?? '')}${answer.appFromDefault === true ? ' (merchant default)' : ''}`],
            ['our string', ours],
            ['server string', theirs],
            ['match', ours === theirs ? 'yes' : `no: ${differences.map((d) => d.key).join(', ') || 'order'}`],
          ],
          this.io.stdoutTty,
        ),
      )
    })
  }
}
