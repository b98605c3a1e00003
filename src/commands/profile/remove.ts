import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {ConfigError, UsageError} from '../../errors.js'
import {LOCAL_PROFILE} from '../../profiles/model.js'

export type ProfileRemoveResult = {removed: string}

export default class ProfileRemove extends BaseCommand {
  static summary = 'Remove a profile (its key files stay where they are)'
  static examples = ['<%= config.bin %> profile remove staging']
  static args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<ProfileRemoveResult> {
    const {args} = await this.parse(ProfileRemove)
    if (args.name === LOCAL_PROFILE) throw new UsageError('the built-in local profile cannot be removed')
    if (!(await this.profileStore().remove(args.name))) throw new ConfigError(`no profile named "${args.name}"`)
    return this.emit({removed: args.name}, () => this.notice(`removed profile ${args.name}`))
  }
}
