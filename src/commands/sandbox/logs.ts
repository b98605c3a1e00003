import {BaseCommand, Flags} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {formatRequestLine, type RequestLogEntry} from '../../protocol/sandbox-requests.js'
import {followRequests, readRequests} from '../../services/sandbox.js'

/** The requests shown, oldest first. --follow streams them until stopped: no result. */
export type SandboxLogsResult = RequestLogEntry[] | undefined

export default class SandboxLogs extends BaseCommand {
  static summary = 'Show every request the local sandbox received, from any client'
  static description =
    'Time, method, path, merchant, HTTP status and the answer\'s code and message. For a refused signature (20052): the sandbox\'s own string to sign, the fields it covers, and the likeliest causes, found by trying the strings real clients produce (null as `key=`, 1.50 or 1e-7 or 1.0E-7, a PHP float signed at 14 digits but sent at 17, an amount signed in another form than sent, the JSON text signed instead of the string to sign, URL-encoded values, a field outside the signed set); when none explains it, it says so. With --json: one JSON document, or with --follow one JSON object per line.'

  static examples = [
    '<%= config.bin %> sandbox logs',
    '<%= config.bin %> sandbox logs --follow',
    '<%= config.bin %> sandbox logs --failed --limit 20',
    '<%= config.bin %> sandbox logs --follow --json',
  ]

  static flags = {
    follow: Flags.boolean({char: 'f', description: 'keep printing new requests until Ctrl-C'}),
    limit: Flags.integer({description: 'show at most the last N requests first (with --failed, the last N failed ones)', min: 1, default: 100}),
    failed: Flags.boolean({description: 'only requests whose answer was not a success'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxLogsResult> {
    const {flags} = await this.parse(SandboxLogs)
    const use = sandboxUse(flags, this.config.dataDir, (m) => this.notice(m))
    const {entries, last, url} = await readRequests(use, {limit: flags.limit, failed: flags.failed})
    if (!flags.follow) {
      return this.emit(entries, () => {
        if (entries.length === 0) this.notice(flags.failed ? 'no failed requests yet' : 'no requests yet')
        for (const entry of entries) this.io.out(formatRequestLine(entry))
      })
    }
    const print = (entry: RequestLogEntry) => this.io.out(this.json ? JSON.stringify(entry) : formatRequestLine(entry))
    for (const entry of entries) print(entry)
    this.notice(`following the requests of ${url}; Ctrl-C to stop`)
    const stop = new AbortController()
    process.once('SIGINT', () => stop.abort())
    process.once('SIGTERM', () => stop.abort())
    await followRequests(use, {after: last, failed: flags.failed}, print, stop.signal)
    return undefined
  }
}
