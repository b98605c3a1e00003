import {basename, join, resolve} from 'node:path'
import {BaseCommand, Flags} from '../../cli/base.js'
import {renderRecord} from '../../output/table.js'
import {writeKeyPair, type WrittenKeyPair} from '../../services/keys.js'
import {useKeyCommand} from '../../services/profiles.js'

/** The files written, the key's fingerprint and the public key (PEM): never the private key. */
export type KeysGenerateResult = WrittenKeyPair

export default class KeysGenerate extends BaseCommand {
  static summary = 'Generate a merchant RSA key pair (2048-bit; PKCS#8 private key 0600, SPKI public key)'
  static description =
    'Writes NAME-private.pem (owner-only) and NAME-public.pem in the CLI config folder\'s keys/ (--out-dir to choose; it says where). Register the public key with the platform; point a profile at the private key file. The private key is never printed.'

  static examples = ['<%= config.bin %> keys generate', '<%= config.bin %> keys generate --out-dir ./keys --name staging']

  static flags = {
    'out-dir': Flags.string({description: 'folder for the key files (default: the CLI config folder\'s keys/)'}),
    name: Flags.string({description: 'file name prefix', default: 'merchant'}),
    force: Flags.boolean({description: 'overwrite existing files'}),
  }

  async run(): Promise<KeysGenerateResult> {
    const {flags} = await this.parse(KeysGenerate)
    const dir = resolve(flags['out-dir'] ?? join(this.config.configDir, 'keys'))
    const result = writeKeyPair(dir, flags.name, flags.force)
    const {privateKeyFile, publicKeyFile, fingerprint, publicKeyPem} = result
    const next = await useKeyCommand(this.profileStore(), privateKeyFile)
    // not the current folder unless asked: say where the files are
    this.notice(`wrote ${basename(privateKeyFile)} (0600) and ${basename(publicKeyFile)} in ${dir}${flags['out-dir'] ? '' : ' (--out-dir . writes them here)'}`)
    return this.emit(result, () => {
      this.io.out(renderRecord([['private key', privateKeyFile], ['public key', publicKeyFile], ['fingerprint', fingerprint]], this.io.stdoutTty))
      // piped, labelled lines only: the key itself is in its file (and in --json)
      if (this.io.stdoutTty) this.io.out(publicKeyPem.trim())
      this.notice(`next: register the public key with the platform, then: ${next}`)
    })
  }
}
