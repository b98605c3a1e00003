import {BaseCommand, Flags} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {renderRecord} from '../../output/table.js'
import {runSandboxInForeground, startSandbox} from '../../services/sandbox.js'

/** The sandbox's address and pid; `started` false when it was running already. --foreground runs until stopped, printing request lines: no result. */
export type SandboxStartResult = {url: string; pid: number; started: boolean} | undefined

export default class SandboxStart extends BaseCommand {
  static summary = 'Start the local sandbox (in the background, or in the foreground for a container or CI job)'
  static description =
    'The sandbox is a local implementation of the platform: signed endpoints, state machines, callbacks with retries. Its state is kept in the data folder and survives restarts, and so does its port: links, QR codes and notify addresses printed earlier keep working. Commands that use the local profile start it on their own.\n\n' +
    'With --foreground it runs in this terminal: one line per request on stdout, a clean stop on SIGTERM or Ctrl-C. --data-dir (or UNIPAY_SANDBOX_DIR) puts its state in another folder; every other `sandbox` command reaches it with the same --data-dir, and one without it refuses to start a second sandbox beside it. Every control call (/_sandbox/*) needs the per-start secret from the runtime file; with a --host beyond loopback the secret is printed once at start (or set it beforehand in UNIPAY_SANDBOX_CONTROL_SECRET).'

  static examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 8720 --time-scale 60',
    '<%= config.bin %> sandbox start --foreground --host 0.0.0.0 --port 8720 --data-dir /var/lib/unipay',
  ]

  static flags = {
    port: Flags.integer({description: 'port to listen on (default: the port of the last start, else a free one)', min: 0, max: 65535}),
    'time-scale': Flags.integer({description: 'run waits (callback retries, refund settlement) this many times faster', min: 1, default: 1}),
    'token-ttl': Flags.integer({description: 'management API session lifetime in seconds (default 72 h)', min: 1}),
    foreground: Flags.boolean({description: 'run in this terminal, logging every request to stdout, until SIGTERM or Ctrl-C'}),
    host: Flags.string({description: 'address to listen on (default 127.0.0.1)', dependsOn: ['foreground']}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxStartResult> {
    const {flags} = await this.parse(SandboxStart)
    const settings = {port: flags.port, timeScale: flags['time-scale'], tokenTtlSeconds: flags['token-ttl']}
    const use = sandboxUse(flags, this.config.dataDir, (m) => this.notice(m))
    if (flags.foreground) {
      this.setExitCode(await runSandboxInForeground(use, {...settings, host: flags.host}))
      return undefined
    }
    const {url, pid, started} = await startSandbox(use, settings)
    if (!started) this.notice('the local sandbox is already running (stop it first to change its options)')
    return this.emit({url, pid, started}, () => this.io.out(renderRecord([['url', url], ['pid', String(pid)]], this.io.stdoutTty)))
  }
}
