import {Args} from '@oclif/core'
import {BaseCommand, profileFlags} from '../../cli/base.js'
import {ConfigError} from '../../errors.js'
import {findRunning, locateSandbox} from '../../local-sandbox/control.js'
import {renderRecord} from '../../output/table.js'
import {LOCAL_PROFILE} from '../../profiles/model.js'
import {describeProfile} from '../../services/profiles.js'

/** The profile's settings, secrets hidden, keys by file and fingerprint. */
export type ProfileShowResult = Record<string, string | boolean>

export default class ProfileShow extends BaseCommand {
  static summary = 'Show a profile: mchNo, appId, key files and fingerprints (never keys or secrets)'
  static examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show --profile staging', '<%= config.bin %> profile show staging --json']
  static args = {name: Args.string({description: 'profile name (default: --profile, else the active one)'})}
  static flags = {profile: profileFlags.profile}

  async run(): Promise<ProfileShowResult> {
    const {args, flags} = await this.parse(ProfileShow)
    const store = this.profileStore()
    const active = await store.activeName()
    const name = args.name ?? flags.profile ?? (process.env.UNIPAY_PROFILE || undefined) ?? active
    const stored = await store.get(name)
    if (!stored && name !== LOCAL_PROFILE) throw new ConfigError(`no profile named "${name}"; \`unipay profile list\` shows the profiles`)
    // the sandbox a call would use: UNIPAY_SANDBOX_DIR's, else this CLI's, else the one running for another folder
    const runtime = name === LOCAL_PROFILE ? await findRunning(locateSandbox(this.config.dataDir), (m) => this.notice(m)) : undefined
    const facts = describeProfile(
      name,
      stored ?? {environment: 'local'},
      active === name,
      runtime && {url: runtime.url, mchNo: runtime.merchant.mchNo, appId: runtime.merchant.appId, privateKeyFile: runtime.merchant.privateKeyFile, platformPublicKeyPem: runtime.platformPublicKeyPem},
    )
    return this.emit(facts, () => this.io.out(renderRecord(Object.entries(facts).map(([k, v]) => [k, String(v)]), this.io.stdoutTty)))
  }
}
