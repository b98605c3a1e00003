import {Args, BaseCommand} from '../../cli/base.js'
import {removeProfile} from '../../services/profiles.js'

export type ProfileRemoveResult = {removed: string}

export default class ProfileRemove extends BaseCommand {
  static summary = 'Remove a profile (its key files stay where they are)'
  static examples = ['<%= config.bin %> profile remove staging']
  static args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<ProfileRemoveResult> {
    const {args} = await this.parse(ProfileRemove)
    await removeProfile(this.profileStore(), args.name)
    return this.emit({removed: args.name}, () => this.notice(`removed profile ${args.name}`))
  }
}
