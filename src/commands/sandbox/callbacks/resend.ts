import {Args} from '@oclif/core'
import {BaseCommand} from '../../../cli/base.js'
import {resendCallback} from '../../../local-sandbox/callbacks.js'
import {ensureSandbox} from '../../../local-sandbox/control.js'
import {callbackRows} from '../../../output/callbacks.js'
import {renderRecord} from '../../../output/table.js'
import type {Notification} from '../../../protocol/notifications.js'

/** The callback sent again, its attempt log so far. */
export type SandboxCallbacksResendResult = Notification

export default class SandboxCallbacksResend extends BaseCommand {
  static summary = 'Send a callback of the local sandbox again now'
  static description =
    'Whatever its state (delivered or given up included), the callback is sent again at once, signed as before; its attempt log continues and, unacknowledged, it is retried on the schedule. `sandbox callbacks list` shows the outcome.'

  static examples = ['<%= config.bin %> sandbox callbacks resend 3f2a9c1e']

  static args = {id: Args.string({description: 'callback id, or a unique prefix of it (as `sandbox callbacks list` shows it)', required: true})}

  async run(): Promise<SandboxCallbacksResendResult> {
    const {args} = await this.parse(SandboxCallbacksResend)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const callback = await resendCallback(runtime, args.id)
    return this.emit(callback, () => {
      const {headers, rows} = callbackRows([callback], false)
      this.io.out(renderRecord(headers.map((header, i): [string, string] => [header, rows[0][i]]), this.io.stdoutTty))
    })
  }
}
