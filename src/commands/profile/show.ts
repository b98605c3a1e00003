import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {ConfigError} from '../../errors.js'
import {renderRecord} from '../../output/table.js'
import {LOCAL_PROFILE, redactProfile} from '../../profiles/model.js'
import {keyFacts} from '../../services/profiles.js'

export default class ProfileShow extends BaseCommand {
  static summary = 'Show a profile (secrets hidden, keys by fingerprint)'
  static examples = ['<%= config.bin %> profile show', '<%= config.bin %> profile show staging --json']
  static args = {name: Args.string({description: 'profile name (default: the active one)'})}

  async run(): Promise<void> {
    const {args} = await this.parse(ProfileShow)
    const store = this.profileStore()
    const active = await store.activeName()
    const name = args.name ?? active
    if (name === LOCAL_PROFILE) {
      const facts = {name, active: active === name, environment: 'local', baseUrl: 'the local sandbox (see `unipay sandbox status`)'}
      await this.emit(facts, () => this.io.out(renderRecord(Object.entries(facts).map(([k, v]) => [k, String(v)]), this.io.stdoutTty)))
      return
    }
    const profile = await store.get(name)
    if (!profile) throw new ConfigError(`no profile named "${name}"`)
    const facts = {name, active: active === name, ...redactProfile(profile), ...keyFacts(profile)}
    await this.emit(facts, () => this.io.out(renderRecord(Object.entries(facts).map(([k, v]) => [k, String(v)]), this.io.stdoutTty)))
  }
}
