import {Args, BaseCommand, Flags} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {renderRecord} from '../../output/table.js'
import {TRIGGER_EVENTS} from '../../protocol/local-sandbox.js'
import {TRIGGERABLE, triggerEvent} from '../../services/sandbox.js'

/** The callback's event (alloc.partial is sent as alloc.success, with dataStatus partial) and the numbers of the objects made to send it (orderNo, refundNo, ...). */
export type SandboxTriggerResult = Record<string, string>

export default class SandboxTrigger extends BaseCommand {
  static summary = 'Make the local sandbox send a callback event to your notify address'
  static description =
    `Creates the objects the event needs for the sandbox merchant and drives them there, as a real flow would: a refund, allocation or transfer first needs a paid order (whose pay.success goes to the same address; \`unipay listen --events\` filters). Events: ${TRIGGER_EVENTS.join(', ')}; alloc.partial is a split whose receivers partly failed, and the platform sends it as alloc.success with data.status partial (there is no alloc.partial event); epay.v1 and epay.v2 send the compatibility module's paid notification (MD5 or RSA signed).`

  static examples = [
    '<%= config.bin %> sandbox trigger pay.success --notify-url http://127.0.0.1:3000/notify',
    '<%= config.bin %> sandbox trigger refund.fail --notify-url http://127.0.0.1:3000/notify --json',
  ]

  static args = {
    event: Args.string({description: `one of ${TRIGGERABLE.join(', ')}`, required: true}),
  }

  static flags = {
    'notify-url': Flags.string({description: 'where the callback goes (your backend, or `unipay listen`)', required: true}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxTriggerResult> {
    const {args, flags} = await this.parse(SandboxTrigger)
    const objects = await triggerEvent(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), args.event, flags['notify-url'])
    return this.emit(objects, () => {
      this.io.out(renderRecord(Object.entries(objects).map(([k, v]) => [k, String(v)]), this.io.stdoutTty))
      const sent = objects.dataStatus ? `${objects.event} callback (data.status ${objects.dataStatus})` : `${objects.event} callback`
      this.notice(`the ${sent} is on its way to ${flags['notify-url']}; \`unipay sandbox callbacks list\` shows its attempts`)
    })
  }
}
