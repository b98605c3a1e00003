import {BaseCommand} from '../../../cli/base.js'
import {tableFlags, tableOptions} from '../../../cli/table-flags.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {callbackRows} from '../../../output/callbacks.js'
import {renderRows} from '../../../output/table.js'
import type {Notification} from '../../../protocol/notifications.js'
import {listCallbacks} from '../../../services/sandbox.js'

/** Every callback with its signed body and attempt log, oldest first. */
export type SandboxCallbacksListResult = Notification[]

export default class SandboxCallbacksList extends BaseCommand {
  static summary = 'Show the callbacks the local sandbox sends: state, attempts, last answer, next retry'
  static description =
    'One row per callback: id (on a terminal its first 8 characters, enough for `sandbox callbacks resend`), event, notifyUrl (on a terminal without http://), state (pending, delivered, given_up), attempts so far, the last answer (acknowledged, refused with its HTTP status and body, or the error) and the next attempt (GMT+8). --json gives the full records: the signed body and every attempt (time, HTTP status, body excerpt, acknowledged).'

  static examples = ['<%= config.bin %> sandbox callbacks list', '<%= config.bin %> sandbox callbacks list --json']

  static flags = {...tableFlags, ...sandboxFlags}

  async run(): Promise<SandboxCallbacksListResult> {
    const {flags} = await this.parse(SandboxCallbacksList)
    const callbacks = await listCallbacks(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit(callbacks, () => {
      if (callbacks.length === 0) return this.notice('no callbacks yet: orders created with a notifyUrl send them')
      const {headers, rows} = callbackRows(callbacks, this.io.stdoutTty)
      this.io.out(renderRows(headers, rows, this.io.stdoutTty, tableOptions(flags, (m) => this.notice(m))))
    })
  }
}
