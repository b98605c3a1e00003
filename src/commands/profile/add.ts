import {Args, BaseCommand, Flags} from '../../cli/base.js'
import {redactProfile} from '../../profiles/model.js'
import {renderRecord} from '../../output/table.js'
import {addProfile, checkSetting} from '../../services/profiles.js'

/** The profile added, secrets redacted; active with --use. */
export type ProfileAddResult = {name: string; profile: Record<string, string>; active: boolean}

export default class ProfileAdd extends BaseCommand {
  static summary = 'Add a merchant profile'
  static description =
    'On a terminal, asks for what the flags leave out; otherwise takes flags only. Key files are checked when added and stored as absolute paths; the config file is written 0600. Secrets are never printed back.'

  static examples = [
    '<%= config.bin %> profile add staging --environment sandbox --base-url https://sandbox.pay.example.com --mch-no M100 --app-id A100 --private-key-file merchant.pem --platform-public-key-file platform.pem',
    '<%= config.bin %> profile add prod   (asks interactively)',
  ]

  static args = {name: Args.string({description: 'profile name', required: true})}
  static flags = {
    environment: Flags.string({description: 'sandbox or production', options: ['sandbox', 'production']}),
    'base-url': Flags.string({description: 'platform address'}),
    'mch-no': Flags.string({description: 'merchant number'}),
    'app-id': Flags.string({description: 'application id'}),
    'channel-mch-no': Flags.string({description: 'channel merchant number, the default of transfers'}),
    'private-key-file': Flags.string({description: 'merchant private key file'}),
    'platform-public-key-file': Flags.string({description: 'platform public key file'}),
    pid: Flags.string({description: 'merchant number of the compatibility module'}),
    use: Flags.boolean({description: 'make it the active profile'}),
  }

  async run(): Promise<ProfileAddResult> {
    const {args, flags} = await this.parse(ProfileAdd)
    const settings: Record<string, string | undefined> = {
      environment: flags.environment,
      baseUrl: flags['base-url'],
      mchNo: flags['mch-no'],
      appId: flags['app-id'],
      channelMchNo: flags['channel-mch-no'],
      privateKeyFile: flags['private-key-file'],
      platformPublicKeyFile: flags['platform-public-key-file'],
      pid: flags.pid,
    }
    if (this.io.stdinTty && !this.json) await this.prompt(() => this.ask(settings), `profile ${args.name} was not added`)
    const profile = await addProfile(this.profileStore(), args.name, settings, {use: flags.use})
    return this.emit({name: args.name, profile: redactProfile(profile), active: flags.use}, () => {
      this.io.out(renderRecord(Object.entries(redactProfile(profile)), this.io.stdoutTty))
      this.notice(`added profile ${args.name}${flags.use ? ' (active)' : `; use it with --profile ${args.name} or \`unipay profile use ${args.name}\``}`)
    })
  }

  private async ask(settings: Record<string, string | undefined>): Promise<void> {
    const {input, select} = await import('@inquirer/prompts')
    // Each answer is checked at its prompt, so a mistyped key file is asked again at once.
    const check = (key: string, required: boolean) => (answer: string) => {
      if (answer.trim() === '') return required ? 'required' : true
      try {
        checkSetting(key, answer.trim())
        return true
      } catch (error) {
        return (error as Error).message
      }
    }
    const ask = async (key: string, message: string, required = false) =>
      (await input({message, validate: check(key, required)})).trim() || undefined
    settings.environment ??= await select({
      message: 'Environment',
      choices: [{value: 'sandbox'}, {value: 'production'}],
    })
    settings.baseUrl ??= await ask('baseUrl', 'Platform address (https://...)', true)
    settings.mchNo ??= await ask('mchNo', 'Merchant number (mchNo)', true)
    settings.appId ??= await ask('appId', 'Application id (appId, blank for the default app)')
    settings.privateKeyFile ??= await ask('privateKeyFile', 'Merchant private key file (blank: none yet, see `unipay keys generate`)')
    settings.platformPublicKeyFile ??= await ask('platformPublicKeyFile', 'Platform public key file')
    settings.channelMchNo ??= await ask('channelMchNo', 'Channel merchant number (channelMchNo, for transfers; blank: none)')
  }
}
