import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {UsageError} from '../../errors.js'
import {readRuntime} from '../../local-sandbox/control.js'
import {followRequests, readRequests} from '../../local-sandbox/logs.js'
import {formatRequestLine, type RequestLogEntry} from '../../protocol/sandbox-requests.js'

/** The requests shown, oldest first. --follow streams them until stopped: no result. */
export type SandboxLogsResult = RequestLogEntry[] | undefined

export default class SandboxLogs extends BaseCommand {
  static summary = 'Show every request the local sandbox received, from any client'
  static description =
    'Time, method, path, merchant, HTTP status and the answer\'s code and message. For a refused signature (20052): the sandbox\'s own string to sign, the fields it covers, and the likeliest causes, found by trying the strings real clients produce (null as `key=`, 1.50 or 1e-7 or 1.0E-7, a PHP float signed at 14 digits but sent at 17, a field outside the signed set, a key mismatch). With --json: one JSON document, or with --follow one JSON object per line.'

  static examples = [
    '<%= config.bin %> sandbox logs',
    '<%= config.bin %> sandbox logs --follow',
    '<%= config.bin %> sandbox logs --failed --limit 20',
    '<%= config.bin %> sandbox logs --follow --json',
  ]

  static flags = {
    follow: Flags.boolean({char: 'f', description: 'keep printing new requests until Ctrl-C'}),
    limit: Flags.integer({description: 'show at most the last N requests first', min: 1, default: 100}),
    failed: Flags.boolean({description: 'only requests whose answer was not a success'}),
  }

  async run(): Promise<SandboxLogsResult> {
    const {flags} = await this.parse(SandboxLogs)
    const runtime = readRuntime(this.config.dataDir)
    if (!runtime) throw new UsageError('the local sandbox is not running; start it with `unipay sandbox start`')
    const shown = (entry: {code?: string; status: number}) => !flags.failed || entry.status >= 400 || entry.status === 0 || (entry.code !== undefined && entry.code !== '0' && entry.code !== '1')
    const {entries, last} = await readRequests(runtime, 0, flags.limit)
    const recent = entries.filter(shown)
    if (!flags.follow) {
      return this.emit(recent, () => {
        if (recent.length === 0) this.notice(flags.failed ? 'no failed requests yet' : 'no requests yet')
        for (const entry of recent) this.io.out(formatRequestLine(entry))
      })
    }
    const print = (entry: (typeof entries)[number]) => {
      if (shown(entry)) this.io.out(this.json ? JSON.stringify(entry) : formatRequestLine(entry))
    }
    for (const entry of entries) print(entry)
    this.notice(`following the requests of ${runtime.url}; Ctrl-C to stop`)
    const stop = new AbortController()
    process.once('SIGINT', () => stop.abort())
    process.once('SIGTERM', () => stop.abort())
    await followRequests(runtime, entries.at(-1)?.seq ?? last, print, stop.signal)
    return undefined
  }
}
