import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {redactProfile} from '../../profiles/model.js'
import {renderRecord} from '../../output/table.js'
import {addProfile} from '../../services/profiles.js'

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
    'channel-mch-no': Flags.string({description: 'channel merchant number'}),
    'private-key-file': Flags.string({description: 'merchant private key file'}),
    'platform-public-key-file': Flags.string({description: 'platform public key file'}),
    pid: Flags.string({description: 'merchant number of the compatibility module'}),
    use: Flags.boolean({description: 'make it the active profile'}),
  }

  async run(): Promise<void> {
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
    if (this.io.stdinTty && !this.json) await this.ask(settings)
    const store = this.profileStore()
    const profile = await addProfile(store, args.name, settings)
    if (flags.use) await store.use(args.name)
    await this.emit({name: args.name, profile: redactProfile(profile), active: flags.use}, () => {
      this.io.out(renderRecord(Object.entries(redactProfile(profile)), this.io.stdoutTty))
      this.notice(`added profile ${args.name}${flags.use ? ' (active)' : `; use it with --profile ${args.name} or \`unipay profile use ${args.name}\``}`)
    })
  }

  private async ask(settings: Record<string, string | undefined>): Promise<void> {
    const {input, select} = await import('@inquirer/prompts')
    settings.environment ??= await select({
      message: 'Environment',
      choices: [{value: 'sandbox'}, {value: 'production'}],
    })
    settings.baseUrl ??= await input({message: 'Platform address (https://...)', required: true})
    settings.mchNo ??= await input({message: 'Merchant number (mchNo)', required: true})
    settings.appId ??= (await input({message: 'Application id (appId, blank for the default app)'})) || undefined
    settings.privateKeyFile ??= (await input({message: 'Merchant private key file (blank: none yet, see `unipay keys generate`)'})) || undefined
    settings.platformPublicKeyFile ??= (await input({message: 'Platform public key file'})) || undefined
  }
}
