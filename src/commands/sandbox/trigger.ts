import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {ensureSandbox} from '../../local-sandbox/control.js'
import {checkTrigger, triggerEvent} from '../../local-sandbox/trigger.js'
import {EPAY_TRIGGER_EVENTS, triggerEpayNotification} from '../../services/sandbox-trigger.js'
import {renderRecord} from '../../output/table.js'
import {TRIGGER_EVENTS} from '../../protocol/local-sandbox.js'

/** The event and the numbers of the objects made to send it (orderNo, refundNo, ...). */
export type SandboxTriggerResult = Record<string, string>

export default class SandboxTrigger extends BaseCommand {
  static summary = 'Make the local sandbox send a callback event to your notify address'
  static description =
    `Creates the objects the event needs for the sandbox merchant and drives them there, as a real flow would: a refund, allocation or transfer first needs a paid order (whose pay.success goes to the same address; \`unipay listen --events\` filters). Events: ${TRIGGER_EVENTS.join(', ')}; epay.v1 and epay.v2 send the compatibility module's paid notification (MD5 or RSA signed).`

  static examples = [
    '<%= config.bin %> sandbox trigger pay.success --notify-url http://127.0.0.1:3000/notify',
    '<%= config.bin %> sandbox trigger refund.fail --notify-url http://127.0.0.1:3000/notify --json',
  ]

  static args = {
    event: Args.string({description: `one of ${[...TRIGGER_EVENTS, ...EPAY_TRIGGER_EVENTS].join(', ')}`, required: true}),
  }

  static flags = {
    'notify-url': Flags.string({description: 'where the callback goes (your backend, or `unipay listen`)', required: true}),
  }

  async run(): Promise<SandboxTriggerResult> {
    const {args, flags} = await this.parse(SandboxTrigger)
    checkTrigger(args.event, flags['notify-url'], EPAY_TRIGGER_EVENTS)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const epay = EPAY_TRIGGER_EVENTS.find((e) => e === args.event)
    const objects = epay ? await triggerEpayNotification(runtime, epay, flags['notify-url']) : await triggerEvent(runtime, args.event, flags['notify-url'])
    return this.emit(objects, () => {
      this.io.out(renderRecord(Object.entries(objects).map(([k, v]) => [k, String(v)]), this.io.stdoutTty))
      this.notice(`the ${args.event} callback is on its way to ${flags['notify-url']}; \`unipay sandbox callbacks list\` shows its attempts`)
    })
  }
}
