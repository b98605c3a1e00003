import {BaseCommand, Flags, profileFlags} from '../cli/base.js'
import {arrivalHeader, arrivalJson, arrivalRow} from '../output/arrivals.js'
import {describePlatformKey} from '../cli/hints.js'
import {sandboxFlags} from '../cli/sandbox-flags.js'
import {DEFAULT_LISTEN_PORT, startListener} from '../services/listen.js'

export default class Listen extends BaseCommand {
  static summary = 'Receive callbacks on a local address, verify each one and show it'
  static description = `Listens on 127.0.0.1, port ${DEFAULT_LISTEN_PORT} unless --port says otherwise (0 picks a free one), and prints the address to use as notifyUrl (or notify_url). Both callback protocols arrive there: system (POST, JSON envelope) and easy_pay (GET query, MD5 or RSA). Each callback is verified (the profile's platform public key; the profile's md5Key for MD5; on the built-in local profile, those of the sandbox that --data-dir, else UNIPAY_SANDBOX_DIR, names, which must hold one) and shown as one table row on a terminal (fitted to its width: business numbers under their column, or below the row; narrower than 87 columns, the PROTOCOL column is left out and an easy_pay notification says easy_pay under EVENT), one JSON line when piped (the raw body with --print-body). Callback values are strings by the protocol, so the JSON line's amount is the string received (cents); amountCents beside it is the same amount as a number.

Only verified callbacks are acknowledged (SUCCESS, or success for easy_pay); any other gets HTTP 400 with the reason, so the platform retries. An RSA (V2) notification whose timestamp is more than 300 s off this machine's clock is not verified either, as V2 clients refuse it: the platform's retry carries a fresh one. With --forward-to, verified callbacks are relayed unchanged (method, content-type, body; what follows /notify in the path and the query are appended to the URL) to your app, and the platform gets your app's answer; while your app is down it gets HTTP 502 and keeps retrying. Callbacks that do not verify are never forwarded. Bad requests are answered and shown, never fatal. Ctrl-C stops it.`

  static examples = [
    '<%= config.bin %> listen',
    '<%= config.bin %> listen --forward-to http://127.0.0.1:3000/pay/notify',
    '<%= config.bin %> listen --port 0 --print-body | tee callbacks.jsonl',
  ]

  static flags = {
    port: Flags.integer({description: 'port on 127.0.0.1 (0: a free one)', min: 0, max: 65535, default: DEFAULT_LISTEN_PORT}),
    'forward-to': Flags.string({description: 'your app\'s callback URL: verified callbacks are relayed to it and answered with its answer'}),
    events: Flags.string({
      description: 'only these events, comma-separated, * as a wildcard (pay.success,refund.*); others are acknowledged but neither shown nor forwarded. A partial split arrives as alloc.success (data.status partial): there is no alloc.partial event to ask for',
    }),
    'print-body': Flags.boolean({description: 'show the raw body (the query string for easy_pay) of each callback'}),
    profile: profileFlags.profile,
    'platform-public-key': profileFlags['platform-public-key'],
    ...sandboxFlags,
  }

  /** Runs until stopped, each callback a line as it arrives: there is no result document to return. */
  async run(): Promise<void> {
    const {flags} = await this.parse(Listen)
    const printBody = flags['print-body']
    const table = this.io.stdoutTty && !this.json
    let keysFrom = ''
    const listener = await startListener({
      port: flags.port,
      forwardTo: flags['forward-to'],
      events: flags.events?.split(',').map((e) => e.trim()).filter(Boolean),
      keys: async () => {
        const profile = await this.resolveProfile(flags, {besideSandbox: {dataDir: flags['data-dir']}})
        keysFrom = describePlatformKey(profile)
        return {platformKey: profile.platformKey, md5Key: profile.settings.md5Key}
      },
      onArrival: (arrival) => this.io.out(table ? arrivalRow(arrival, printBody) : arrivalJson(arrival, printBody)),
    })
    const {platformKey, md5Key} = listener.keys
    this.notice(`listening on ${listener.notifyUrl} (system POST and easy_pay GET)`)
    this.notice(
      `verifying with ${platformKey ? `the ${keysFrom}` : 'no platform key (system and RSA callbacks will not verify)'}; ` +
        `MD5 key ${md5Key ? 'set' : 'not set (MD5 callbacks will not verify)'}`,
    )
    if (flags['forward-to']) this.notice(`forwarding verified callbacks to ${flags['forward-to']}`)
    this.notice('Ctrl-C to stop')
    if (table) this.io.out(arrivalHeader())
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await listener.close()
    this.notice('stopped')
  }
}
