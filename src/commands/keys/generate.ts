import {chmodSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {UsageError} from '../../errors.js'
import {renderRecord} from '../../output/table.js'
import {generateRsaKeyPair, keyFingerprint, loadPublicKey} from '../../protocol/keys.js'

const WRITE_ERRORS: Record<string, string> = {
  EEXIST: 'a file, not a folder, is in the way',
  ENOTDIR: 'a file, not a folder, is in the way',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left',
  ENOENT: 'a folder cannot be made there',
}

/** mkdir -p one level at a time: Node 20's recursive mkdir never returns in some folders (/proc). */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return
  makeDirs(dirname(dir))
  mkdirSync(dir, {mode: 0o700})
}

export default class KeysGenerate extends BaseCommand {
  static summary = 'Generate a merchant RSA key pair (2048-bit; PKCS#8 private key 0600, SPKI public key)'
  static description =
    'Writes NAME-private.pem (owner-only) and NAME-public.pem. Register the public key with the platform; point a profile at the private key file. The private key is never printed.'

  static examples = ['<%= config.bin %> keys generate', '<%= config.bin %> keys generate --out-dir ./keys --name staging']

  static flags = {
    'out-dir': Flags.string({description: 'folder for the key files (default: the CLI config folder\'s keys/)'}),
    name: Flags.string({description: 'file name prefix', default: 'merchant'}),
    force: Flags.boolean({description: 'overwrite existing files'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(KeysGenerate)
    if (!/^[A-Za-z0-9_.-]+$/.test(flags.name)) throw new UsageError('--name: use letters, digits, _ . -')
    const dir = resolve(flags['out-dir'] ?? join(this.config.configDir, 'keys'))
    const privateKeyFile = join(dir, `${flags.name}-private.pem`)
    const publicKeyFile = join(dir, `${flags.name}-public.pem`)
    if (!flags.force && (existsSync(privateKeyFile) || existsSync(publicKeyFile))) {
      throw new UsageError(`${privateKeyFile} or its public key exists; pass --force to overwrite`)
    }
    const pair = generateRsaKeyPair()
    try {
      makeDirs(dir)
      writeFileSync(privateKeyFile, pair.privateKeyPem, {mode: 0o600})
      chmodSync(privateKeyFile, 0o600) // the mode option only applies to a new file (--force)
      writeFileSync(publicKeyFile, pair.publicKeyPem, {mode: 0o644})
    } catch (error) {
      const {code, path} = error as NodeJS.ErrnoException
      if (!code) throw error
      const why = WRITE_ERRORS[code] ?? code
      throw new UsageError(`--out-dir ${dir}: cannot write the key files there: ${why}${path && path !== dir ? ` (${path})` : ''}`)
    }
    const fingerprint = keyFingerprint(loadPublicKey(pair.publicKeyPem))
    const result = {privateKeyFile, publicKeyFile, fingerprint, publicKeyPem: pair.publicKeyPem}
    await this.emit(result, () => {
      this.io.out(renderRecord([['private key', privateKeyFile], ['public key', publicKeyFile], ['fingerprint', fingerprint]], this.io.stdoutTty))
      this.io.out(pair.publicKeyPem.trim())
      this.notice(`next: register the public key with the platform, then: unipay profile set privateKeyFile ${privateKeyFile}`)
    })
  }
}
