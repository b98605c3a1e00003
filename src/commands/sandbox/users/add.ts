import {Args, BaseCommand, Flags} from '../../../cli/base.js'
import {readPasswordStdin} from '../../../cli/input.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {addUser} from '../../../services/sandbox.js'

/** The user created, and its merchant. */
export type SandboxUsersAddResult = {account: string; mchNo: string}

export default class SandboxUsersAdd extends BaseCommand {
  static summary = 'Create a management API user in the local sandbox'
  static description = 'The user sees only its merchant\'s data (default: the sandbox\'s default merchant). The password comes from standard input.'
  static examples = ['printf %s secret | <%= config.bin %> sandbox users add ops --password-stdin']
  static args = {account: Args.string({description: 'account name', required: true})}
  static flags = {
    'password-stdin': Flags.boolean({description: 'read the password from standard input', required: true}),
    'mch-no': Flags.string({description: 'merchant the user belongs to (default: the sandbox merchant)'}),
    ...sandboxFlags,
  }

  async run(): Promise<SandboxUsersAddResult> {
    const {args, flags} = await this.parse(SandboxUsersAdd)
    const password = readPasswordStdin()
    const user = await addUser(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)), {account: args.account, password, mchNo: flags['mch-no']})
    return this.emit(user, () => this.notice(`user ${user.account} can now log in for merchant ${user.mchNo}`))
  }
}
