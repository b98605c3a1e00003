import {BaseCommand, profileFlags} from '../../cli/base.js'
import {ConfigError} from '../../errors.js'
import {LOCAL_PROFILE} from '../../profiles/model.js'
import {dropToken} from '../../services/profiles.js'

/** loggedOut false when the profile had no session. */
export type MchLogoutResult = {profile: string; loggedOut: boolean}

export default class MchLogout extends BaseCommand {
  static summary = 'End the management API session: the token kept in the profile is removed'
  static description = 'Only the local copy of the session ends: the platform has no logout call, and the token expires on its own.'
  static examples = ['<%= config.bin %> mch logout', '<%= config.bin %> mch logout --profile staging']
  static flags = {profile: profileFlags.profile}

  async run(): Promise<MchLogoutResult> {
    const {flags} = await this.parse(MchLogout)
    const store = this.profileStore()
    const name = flags.profile ?? (process.env.UNIPAY_PROFILE || undefined) ?? (await store.activeName())
    if (name !== LOCAL_PROFILE && !(await store.get(name))) throw new ConfigError(`no profile named "${name}"; \`unipay profile list\` shows the profiles`)
    const ended = await dropToken(store, name)
    return this.emit({profile: name, loggedOut: ended}, () =>
      this.notice(ended ? `logged out: the session token is removed from profile ${name}` : `profile ${name} has no session; nothing to do`),
    )
  }
}
