import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {ConfigError} from '../../errors.js'
import {LOCAL_PROFILE} from '../../profiles/model.js'

export type ProfileUseResult = {active: string}

export default class ProfileUse extends BaseCommand {
  static summary = 'Make a profile the active one'
  static examples = ['<%= config.bin %> profile use staging', '<%= config.bin %> profile use local']
  static args = {name: Args.string({description: 'profile name', required: true})}

  async run(): Promise<ProfileUseResult> {
    const {args} = await this.parse(ProfileUse)
    const store = this.profileStore()
    if (args.name !== LOCAL_PROFILE && !(await store.get(args.name))) {
      throw new ConfigError(`no profile named "${args.name}"; \`unipay profile list\` shows the profiles`)
    }
    await store.use(args.name)
    return this.emit({active: args.name}, () => this.notice(`active profile: ${args.name}`))
  }
}
