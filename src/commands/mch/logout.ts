import {BaseCommand, profileFlags} from '../../cli/base.js'
import {endSession} from '../../services/profiles.js'

/** loggedOut false when the profile had no session. */
export type MchLogoutResult = {profile: string; loggedOut: boolean}

export default class MchLogout extends BaseCommand {
  static summary = 'End the management API session: the token kept in the profile is removed'
  static description = 'Only the local copy of the session ends: the platform has no logout call, and the token expires on its own.'
  static examples = ['<%= config.bin %> mch logout', '<%= config.bin %> mch logout --profile staging']
  static flags = {profile: profileFlags.profile}

  async run(): Promise<MchLogoutResult> {
    const {flags} = await this.parse(MchLogout)
    const ended = await endSession(this.profileStore(), flags.profile, process.env)
    return this.emit(ended, () =>
      this.notice(ended.loggedOut ? `logged out: the session token is removed from profile ${ended.profile}` : `profile ${ended.profile} has no session; nothing to do`),
    )
  }
}
