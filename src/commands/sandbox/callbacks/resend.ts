import {Args, BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {callbackRows} from '../../../output/callbacks.js'
import type {Cell} from '../../../output/format.js'
import {renderRecord} from '../../../output/table.js'
import type {Notification} from '../../../protocol/notifications.js'
import {resendCallback} from '../../../services/sandbox.js'

/** The callback sent again, its attempt log with the attempt just made last. */
export type SandboxCallbacksResendResult = Notification

export default class SandboxCallbacksResend extends BaseCommand {
  static summary = 'Send a callback of the local sandbox again now'
  static description =
    'Whatever its state (delivered or given up included), the callback is sent again at once, signed as before, and the command shows that attempt\'s answer; its attempt log continues and, unacknowledged, it is retried on the schedule.'

  static examples = ['<%= config.bin %> sandbox callbacks resend 3f2a9c1e']

  static args = {id: Args.string({description: 'callback id, or a unique prefix of it (as `sandbox callbacks list` shows it)', required: true})}
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxCallbacksResendResult> {
    const {args, flags} = await this.parse(SandboxCallbacksResend)
    const callback = await resendCallback(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.id)
    return this.emit(callback, () => {
      const {headers, rows} = callbackRows([callback], false)
      this.io.out(renderRecord(headers.map((header, i): [string, Cell] => [header, rows[0][i]]), this.io.stdoutTty))
    })
  }
}
