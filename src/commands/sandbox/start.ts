import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {ensureSandbox} from '../../local-sandbox/control.js'

export default class SandboxStart extends BaseCommand {
  static summary = 'Start the local sandbox in the background'
  static description =
    'The sandbox is a local implementation of the platform: signed endpoints, state machines, callbacks with retries. Its state is kept in the data folder and survives restarts. Commands that use the local profile start it on their own.'

  static examples = ['<%= config.bin %> sandbox start', '<%= config.bin %> sandbox start --port 8720 --time-scale 60']

  static flags = {
    port: Flags.integer({description: 'port to listen on, on 127.0.0.1 (default: a free one)', min: 0, max: 65535}),
    'time-scale': Flags.integer({description: 'run waits (callback retries, refund settlement) this many times faster', min: 1, default: 1}),
    'token-ttl': Flags.integer({description: 'management API session lifetime in seconds (default 72 h)', min: 1}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(SandboxStart)
    const {runtime, started} = await ensureSandbox(this.config.dataDir, {port: flags.port, timeScale: flags['time-scale'], tokenTtlSeconds: flags['token-ttl']}, (m) => this.notice(m))
    if (!started) this.notice('the local sandbox is already running (stop it first to change its options)')
    await this.emit({url: runtime.url, pid: runtime.pid, started}, () => this.io.out(`${runtime.url}\t(pid ${runtime.pid})`))
  }
}
