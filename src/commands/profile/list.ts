import {BaseCommand} from '../../cli/base.js'
import {renderRows} from '../../output/table.js'
import {LOCAL_PROFILE} from '../../profiles/model.js'

/** Every profile, the built-in local one first; `active` marks the one in use. */
export type ProfileListResult = {name: string; environment: string; baseUrl: string; mchNo: string; active: boolean}[]

export default class ProfileList extends BaseCommand {
  static summary = 'List profiles (the built-in local sandbox profile included)'
  static examples = ['<%= config.bin %> profile list']

  async run(): Promise<ProfileListResult> {
    await this.parse(ProfileList)
    const store = this.profileStore()
    const active = await store.activeName()
    const profiles = await store.list()
    const rows: ProfileListResult = [
      {name: LOCAL_PROFILE, environment: 'local', baseUrl: '(local sandbox, started on demand)', mchNo: '', active: active === LOCAL_PROFILE},
      ...Object.entries(profiles).filter(([name]) => name !== LOCAL_PROFILE).map(([name, p]) => ({name, environment: p.environment, baseUrl: p.baseUrl ?? '', mchNo: p.mchNo ?? '', active: active === name})),
    ]
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
