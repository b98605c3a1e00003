import {BaseCommand} from '../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../cli/sandbox-flags.js'
import {renderRecord} from '../../output/table.js'
import {sandboxStatus, type SandboxStatus as Status} from '../../services/sandbox.js'

/** Whether the sandbox runs; when it does, where, as which merchant, and with which keys (files by name, the platform public key as PEM); when not, the sandboxes running for other folders. */
export type SandboxStatusResult = Status

export default class SandboxStatus extends BaseCommand {
  static summary = 'Show whether the local sandbox runs, its address, pid and platform public key'
  static description = 'The platform public key is what a merchant verifies answers and callbacks with. Exit 0 either way; see "running".'
  static examples = ['<%= config.bin %> sandbox status', '<%= config.bin %> sandbox status --json', '<%= config.bin %> sandbox status --data-dir ./sandbox-state']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxStatusResult> {
    const {flags} = await this.parse(SandboxStatus)
    const status = await sandboxStatus(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit(status, () => {
      const {platformPublicKey, ...rest} = status as Record<string, unknown>
      const pem = platformPublicKey ? String(platformPublicKey).trim() : undefined
      // piped, every line is label<TAB>value: the key as bare Base64 (SPKI DER), as `credentials` gives it
      const lines = Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])
      if (pem && !this.io.stdoutTty) lines.push(['platformPublicKey', pem.replace(/-----[^-]+-----|\s/g, '')])
      this.io.out(renderRecord(lines, this.io.stdoutTty))
      if (pem && this.io.stdoutTty) this.io.out(pem)
    })
  }
}
