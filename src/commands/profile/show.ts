import {Args, BaseCommand, profileFlags} from '../../cli/base.js'
import {renderRecord} from '../../output/table.js'
import {showProfile} from '../../services/profiles.js'

/** The profile's settings, secrets hidden, keys by file and fingerprint. */
export type ProfileShowResult = Record<string, string | boolean>

export default class ProfileShow extends BaseCommand {
  static summary = 'Show a profile: mchNo, appId, key files and fingerprints (never keys or secrets)'
  static examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show --profile staging', '<%= config.bin %> profile show staging --json']
  static args = {name: Args.string({description: 'profile name (default: --profile, else the active one)'})}
  static flags = {profile: profileFlags.profile}

  async run(): Promise<ProfileShowResult> {
    const {args, flags} = await this.parse(ProfileShow)
    const facts = await showProfile(this.profileStore(), args.name ?? flags.profile, {home: this.config.dataDir, env: process.env, notice: (m) => this.notice(m)})
    return this.emit(facts, () => this.io.out(renderRecord(Object.entries(facts).map(([k, v]) => [k, String(v)]), this.io.stdoutTty)))
  }
}
