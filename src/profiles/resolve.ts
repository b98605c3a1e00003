// Settings in force for one run: flags > UNIPAY_* environment > active profile > defaults.
// Each value remembers where it came from, for `profile show` and clear errors.
import {readFileSync, statSync} from 'node:fs'
import type {KeyObject} from 'node:crypto'
import {ConfigError, readProblem} from '../errors.js'
import {ensureSandbox, type StartSettings} from '../local-sandbox/lifecycle.js'
import {locateSandbox, requireSandbox} from '../local-sandbox/location.js'
import {KeyFormatError, loadPrivateKey, loadPublicKey} from '../protocol/keys.js'
import type {SandboxRuntime} from '../protocol/local-sandbox.js'
import {LOCAL_PROFILE, type Environment, type Profile} from './model.js'
import type {ProfileStore} from './store.js'

export type Source = 'flag' | 'env' | 'profile' | 'local sandbox' | 'default'

interface Overrides {
  profile?: string
  baseUrl?: string
  mchNo?: string
  appId?: string
  privateKeyFile?: string
  platformPublicKeyFile?: string
}

export interface ResolvedProfile {
  name: string
  environment: Environment
  settings: Profile
  sources: Partial<Record<keyof Profile | 'profile', Source>>
  privateKey?: KeyObject
  platformKey?: KeyObject
  warnings: string[]
  /** The local profile's sandbox, once started: what the profile's settings were taken from. */
  sandbox?: SandboxRuntime
}

const ENV: Record<keyof Overrides, string> = {
  profile: 'UNIPAY_PROFILE',
  baseUrl: 'UNIPAY_BASE_URL',
  mchNo: 'UNIPAY_MCH_NO',
  appId: 'UNIPAY_APP_ID',
  privateKeyFile: 'UNIPAY_PRIVATE_KEY_FILE',
  platformPublicKeyFile: 'UNIPAY_PLATFORM_PUBLIC_KEY_FILE',
}

interface ResolveInput {
  store: ProfileStore
  dataDir: string
  flags: Overrides
  env: NodeJS.ProcessEnv
  notice?: (message: string) => void
  /** Whether to start the local sandbox when the local profile is in force. */
  startSandbox?: boolean
  sandboxSettings?: StartSettings
  /**
   * The local profile's sandbox as a command's --data-dir names it (else UNIPAY_SANDBOX_DIR's,
   * else the CLI's), for a command that works beside a sandbox (`listen`): one named must exist.
   */
  besideSandbox?: {dataDir?: string}
}

export async function resolveProfile(input: ResolveInput): Promise<ResolvedProfile> {
  const {store, flags, env} = input
  const sources: ResolvedProfile['sources'] = {}
  const pick = <K extends keyof Overrides>(key: K): string | undefined => {
    if (flags[key]) {
      sources[key] = 'flag'
      return flags[key]
    }
    if (env[ENV[key]]) {
      sources[key] = 'env'
      return env[ENV[key]]
    }
    return undefined
  }
  const explicitName = pick('profile')
  const name = explicitName ?? (await store.activeName())
  if (!explicitName) sources.profile = 'profile'
  const warnings: string[] = []
  let base: Profile
  if (name === LOCAL_PROFILE) {
    // Only the management session is ever stored for the built-in profile.
    const token = (await store.get(LOCAL_PROFILE))?.token
    base = token ? {environment: 'local', token} : {environment: 'local'}
  } else {
    const stored = await store.get(name)
    if (!stored) throw new ConfigError(`no profile named "${name}"; \`unipay profile list\` shows the profiles`)
    base = stored
  }
  const settings: Profile = {...base}
  for (const key of Object.keys(base) as (keyof Profile)[]) sources[key] = 'profile'
  for (const key of ['baseUrl', 'mchNo', 'appId', 'privateKeyFile', 'platformPublicKeyFile'] as const) {
    const value = pick(key)
    if (value !== undefined) settings[key] = value
  }
  // a key file from a flag or the environment replaces the profile's inline key, and its source
  if (sources.privateKeyFile === 'flag' || sources.privateKeyFile === 'env') {
    delete settings.privateKey
    delete sources.privateKey
  }
  if (sources.platformPublicKeyFile === 'flag' || sources.platformPublicKeyFile === 'env') {
    delete settings.platformPublicKey
    delete sources.platformPublicKey
  }

  let sandbox: SandboxRuntime | undefined
  if (input.besideSandbox?.dataDir && settings.environment !== 'local') {
    warnings.push(`--data-dir names a sandbox, but profile ${name} is not the local one: its own settings and keys are used`)
  }
  if (settings.environment === 'local' && input.startSandbox !== false) {
    // the sandbox UNIPAY_SANDBOX_DIR names, as every `sandbox` command uses
    const location = locateSandbox(input.dataDir, input.besideSandbox?.dataDir, env)
    if (input.besideSandbox) requireSandbox(location)
    const {runtime} = await ensureSandbox(location, input.sandboxSettings, input.notice)
    sandbox = runtime
    const fill = (key: keyof Profile, value: string) => {
      if (settings[key] === undefined) {
        ;(settings as unknown as Record<string, unknown>)[key] = value
        sources[key] = 'local sandbox'
      }
    }
    fill('baseUrl', runtime.url)
    fill('mchNo', runtime.merchant.mchNo)
    fill('appId', runtime.merchant.appId)
    if (!settings.privateKey) fill('privateKeyFile', runtime.merchant.privateKeyFile)
    if (!settings.platformPublicKeyFile) fill('platformPublicKey', runtime.platformPublicKeyPem)
    fill('pid', runtime.merchant.mchNo)
    // The compatibility module's V1 key: read from the file the sandbox names, never published itself.
    const md5KeyFile = runtime.merchant.md5KeyFile
    if (md5KeyFile && settings.md5Key === undefined) {
      try {
        fill('md5Key', readFileSync(md5KeyFile, 'utf8').trim())
      } catch (error) {
        warnings.push(`cannot read the local sandbox's MD5 key file ${md5KeyFile}: ${readProblem(error)}`)
      }
    }
  }

  const privateKey = readKey('private', settings.privateKeyFile, settings.privateKey, warnings)
  const platformKey = readKey('public', settings.platformPublicKeyFile, settings.platformPublicKey, warnings)
  return {
    name,
    environment: settings.environment,
    settings,
    sources,
    privateKey: privateKey,
    platformKey: platformKey,
    warnings,
    sandbox,
  }
}

function readKey(kind: 'private' | 'public', file: string | undefined, inline: string | undefined, warnings: string[]) {
  let text = inline
  let where = 'the inline key'
  if (file) {
    where = file
    try {
      text = readFileSync(file, 'utf8')
      if (kind === 'private' && (statSync(file).mode & 0o077) !== 0) {
        warnings.push(`private key file ${file} is readable by other users; run: chmod 600 ${file}`)
      }
    } catch (error) {
      throw new ConfigError(`cannot read the ${kind} key file ${file}: ${readProblem(error)}`)
    }
  }
  if (text === undefined) return undefined
  try {
    return kind === 'private' ? loadPrivateKey(text) : loadPublicKey(text)
  } catch (error) {
    if (error instanceof KeyFormatError) throw new ConfigError(`${where}: ${error.message}`)
    throw error
  }
}
