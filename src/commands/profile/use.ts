import {Args, BaseCommand} from '../../cli/base.js'
import {useProfile} from '../../services/profiles.js'

export type ProfileUseResult = {active: string}

export default class ProfileUse extends BaseCommand {
  static summary = 'Make a profile the active one'
  static examples = ['<%= config.bin %> profile use staging', '<%= config.bin %> profile use local']
  static args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<ProfileUseResult> {
    const {args} = await this.parse(ProfileUse)
    await useProfile(this.profileStore(), args.name)
    return this.emit({active: args.name}, () => this.notice(`active profile: ${args.name}`))
  }
}
