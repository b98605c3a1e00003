import {Args, BaseCommand, Flags} from '../../cli/base.js'
import {readText} from '../../cli/input.js'
import {UsageError} from '../../errors.js'
import {SETTINGS} from '../../profiles/model.js'
import {setProfileValue} from '../../services/profiles.js'

/** The setting changed; a secret's value shows as (set, hidden), a removed one as (unset). */
export type ProfileSetResult = {profile: string; key: string; value: string}

export default class ProfileSet extends BaseCommand {
  static summary = 'Change one setting of a profile'
  static description = `Settings: ${SETTINGS.map((s) => `${s.key} (${s.description})`).join('; ')}. Give - as the value to read it from standard input (for secrets, kept out of shell history). --unset removes it.`
  static examples = [
    '<%= config.bin %> profile set baseUrl https://pay.example.com --profile staging',
    'printf %s "$MD5_KEY" | <%= config.bin %> profile set md5Key - --profile staging',
  ]

  static args = {
    key: Args.string({description: 'setting name', required: true}),
    value: Args.string({description: 'new value (- for stdin)'}),
  }

  static flags = {
    profile: Flags.string({description: 'profile to change (default: the active one)'}),
    unset: Flags.boolean({description: 'remove the setting'}),
  }

  async run(): Promise<ProfileSetResult> {
    const {args, flags} = await this.parse(ProfileSet)
    const value = flags.unset ? undefined : args.value === '-' ? readText('-', 'value').trim() : args.value
    if (!flags.unset && value === undefined) {
      throw new UsageError(`give a value for ${args.key}, - to read it from stdin, or --unset`)
    }
    const set = await setProfileValue(this.profileStore(), flags.profile, args.key, value)
    return this.emit(set, () => this.notice(`${set.profile}: ${set.key} = ${set.value}`))
  }
}
