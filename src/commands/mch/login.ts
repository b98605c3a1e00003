import {BaseCommand, Flags, profileFlags} from '../../cli/base.js'
import {readPasswordStdin} from '../../cli/input.js'
import {UsageError} from '../../errors.js'
import {startSession} from '../../services/mch.js'

/** The profile that keeps the session; the token itself is never returned. */
export type MchLoginResult = {profile: string; account: string; loggedIn: true}

export default class MchLogin extends BaseCommand {
  static summary = 'Log in to the management API and keep the session token in the profile'
  static description =
    'The password is encrypted with the platform\'s login key before it is sent. On a terminal it is asked for without echo; scripts pass it on standard input with --password-stdin. The token is stored in the profile (0600) and never printed.'

  static examples = ['<%= config.bin %> mch login --account ops', 'printf %s "$PASSWORD" | <%= config.bin %> mch login --account ops --password-stdin']

  static flags = {
    profile: profileFlags.profile,
    account: Flags.string({description: 'merchant user account', required: true}),
    'password-stdin': Flags.boolean({description: 'read the password from standard input'}),
  }

  async run(): Promise<MchLoginResult> {
    const {flags} = await this.parse(MchLogin)
    let password: string
    if (flags['password-stdin']) password = readPasswordStdin()
    else if (this.io.stdinTty) {
      const {password: ask} = await import('@inquirer/prompts')
      password = await ask({message: `Password for ${flags.account}`, mask: false})
    } else throw new UsageError('no terminal to ask for the password: pass it on standard input with --password-stdin')
    if (!password) throw new UsageError('the password is empty')
    const {profile, config} = await this.managementContext(flags)
    await startSession(config, this.profileStore(), profile.name, flags.account, password)
    return this.emit({profile: profile.name, account: flags.account, loggedIn: true} as const, () =>
      this.notice(`logged in as ${flags.account}; the session is kept in profile ${profile.name}`),
    )
  }
}
