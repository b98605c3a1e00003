import {BaseCommand} from '../../cli/base.js'
import {readRuntime} from '../../local-sandbox/control.js'
import {renderRecord} from '../../output/table.js'
import {sandboxDir} from '../../protocol/local-sandbox.js'

/** Whether the sandbox runs; when it does, where, as which merchant, and with which keys (files by name, the platform public key as PEM). */
export type SandboxStatusResult =
  | {
      running: true
      url: string
      pid: number
      startedAt: string
      mchNo: string
      appId: string
      privateKeyFile: string
      md5KeyFile?: string
      platformPublicKey: string
      dataDir: string
    }
  | {running: false; dataDir: string}

export default class SandboxStatus extends BaseCommand {
  static summary = 'Show whether the local sandbox runs, its address, pid and platform public key'
  static description = 'The platform public key is what a merchant verifies answers and callbacks with. Exit 0 either way; see "running".'
  static examples = ['<%= config.bin %> sandbox status', '<%= config.bin %> sandbox status --json']

  async run(): Promise<SandboxStatusResult> {
    await this.parse(SandboxStatus)
    const runtime = readRuntime(this.config.dataDir)
    const status: SandboxStatusResult = runtime
      ? {
          running: true,
          url: runtime.url,
          pid: runtime.pid,
          startedAt: runtime.startedAt,
          mchNo: runtime.merchant.mchNo,
          appId: runtime.merchant.appId,
          // where a third-party client finds the merchant's keys (paths only, never the keys)
          privateKeyFile: runtime.merchant.privateKeyFile,
          md5KeyFile: runtime.merchant.md5KeyFile,
          platformPublicKey: runtime.platformPublicKeyPem,
          dataDir: sandboxDir(this.config.dataDir),
        }
      : {running: false, dataDir: sandboxDir(this.config.dataDir)}
    return this.emit(status, () => {
      const {platformPublicKey, ...rest} = status as Record<string, unknown>
      this.io.out(renderRecord(Object.entries(rest).map(([k, v]) => [k, String(v)]), this.io.stdoutTty))
      if (platformPublicKey) this.io.out(String(platformPublicKey).trim())
    })
  }
}
