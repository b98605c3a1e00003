import {BaseCommand} from '../../cli/base.js'
import {renderRows} from '../../output/table.js'
import {listProfiles, type ProfileListing} from '../../services/profiles.js'

/** Every profile, the built-in local one first; `active` marks the one in use. */
export type ProfileListResult = ProfileListing[]

export default class ProfileList extends BaseCommand {
  static summary = 'List profiles (the built-in local sandbox profile included)'
  static examples = ['<%= config.bin %> profile list']

  async run(): Promise<ProfileListResult> {
    await this.parse(ProfileList)
    const rows = await listProfiles(this.profileStore())
    return this.emit(rows, () =>
      this.io.out(
        renderRows(
          ['', 'name', 'environment', 'baseUrl', 'mchNo'],
          rows.map((r) => [r.active ? '*' : '', r.name, r.environment, r.baseUrl, r.mchNo]),
          this.io.stdoutTty,
        ),
      ),
    )
  }
}
