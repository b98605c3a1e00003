// Profile management: validation of what is stored (addresses, key files that really hold
// keys), so that a broken profile is refused when written, not when money is on the line.
import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join, resolve} from 'node:path'
import {ConfigError, readProblem, UsageError} from '../errors.js'
import {findRunning, locateSandbox} from '../local-sandbox/location.js'
import {isSecret, LOCAL_PROFILE, redactProfile, SETTINGS, type Profile} from '../profiles/model.js'
import type {ProfileStore} from '../profiles/store.js'
import {keyFingerprint, KeyFormatError, loadPrivateKey, loadPublicKey} from '../protocol/keys.js'

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

function checkProfileName(name: string): void {
  if (!NAME.test(name)) throw new UsageError(`profile name "${name}": use letters, digits, _ . - (at most 64)`)
  if (name === LOCAL_PROFILE) throw new UsageError('"local" is the built-in local sandbox profile; choose another name')
}

/** `~/keys/a.pem` as the shell would expand it: prompts and `--flag=~/...` get no shell expansion. */
function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path
}

/** The setting named `key`; any other name (`__proto__` too) is refused, to be set and unset alike. */
function knownSetting(key: string): (typeof SETTINGS)[number] {
  const spec = SETTINGS.find((s) => s.key === key)
  if (!spec) throw new UsageError(`unknown setting "${key}"; settings: ${SETTINGS.map((s) => s.key).join(', ')}`)
  return spec
}

/** Checks one setting and returns the value to store (key files as absolute paths). */
export function checkSetting(key: string, value: string): Partial<Profile> {
  const spec = knownSetting(key)
  if (spec.values && !spec.values.includes(value)) throw new UsageError(`${key} must be one of: ${spec.values.join(', ')}`)
  if (key === 'baseUrl' && !/^https?:\/\/[^\s/]+/.test(value)) throw new UsageError(`baseUrl must be an http(s) address, got "${value}"`)
  if (key === 'environment' && value === 'local') throw new UsageError('environment "local" is reserved for the built-in profile; use sandbox or production')
  try {
    if (key === 'privateKeyFile' || key === 'platformPublicKeyFile') {
      const file = resolve(expandHome(value))
      let text: string
      try {
        text = readFileSync(file, 'utf8')
      } catch (error) {
        throw new ConfigError(`${key}: cannot read ${file}: ${readProblem(error)}`)
      }
      if (key === 'privateKeyFile') loadPrivateKey(text)
      else loadPublicKey(text)
      return {[key]: file}
    }
    if (key === 'privateKey') loadPrivateKey(value)
    if (key === 'platformPublicKey') loadPublicKey(value)
  } catch (error) {
    if (error instanceof KeyFormatError) throw new ConfigError(`${key}: ${error.message}`)
    throw error
  }
  return {[key]: value}
}

/** `profile add`: checked, saved, and made the active profile with `use`. */
export async function addProfile(store: ProfileStore, name: string, settings: Record<string, string | undefined>, {use = false} = {}): Promise<Profile> {
  checkProfileName(name)
  if (await store.get(name)) throw new UsageError(`profile "${name}" exists; change it with \`unipay profile set\` or remove it first`)
  let profile: Profile = {environment: 'sandbox'}
  for (const [key, value] of Object.entries(settings)) {
    if (value !== undefined && value !== '') profile = {...profile, ...checkSetting(key, value)}
  }
  if (!profile.baseUrl) throw new UsageError('invalid input', [{field: 'baseUrl', message: 'is required'}])
  if (!profile.mchNo) throw new UsageError('invalid input', [{field: 'mchNo', message: 'is required'}])
  await store.save(name, profile)
  if (use) await store.use(name)
  return profile
}

/**
 * `profile set`: one setting of the named profile (default: the active one) changed, or removed
 * when `value` is undefined. Returns what a screen may show: a secret as (set, hidden).
 */
export async function setProfileValue(store: ProfileStore, named: string | undefined, key: string, value: string | undefined): Promise<{profile: string; key: string; value: string}> {
  const name = named ?? (await store.activeName())
  if (name === LOCAL_PROFILE) throw new UsageError('the built-in local profile cannot be changed; add a profile of your own')
  const profile = await store.get(name)
  if (!profile) throw new ConfigError(`no profile named "${name}"`)
  const next: Profile = {...profile}
  if (value === undefined || value === '') {
    knownSetting(key)
    if (key === 'environment') throw new UsageError('environment cannot be unset')
    delete (next as unknown as Record<string, unknown>)[key]
  } else Object.assign(next, checkSetting(key, value))
  await store.save(name, next)
  return {profile: name, key, value: value === undefined || value === '' ? '(unset)' : isSecret(key) ? '(set, hidden)' : value}
}

/**
 * The command that points a profile at a new private key: `profile set` on the active profile,
 * or `profile add` while the built-in local one (which cannot be changed) is active.
 */
export async function useKeyCommand(store: ProfileStore, privateKeyFile: string): Promise<string> {
  const name = await store.activeName()
  if (name !== LOCAL_PROFILE) return `unipay profile set privateKeyFile ${privateKeyFile} --profile ${name}`
  return `unipay profile add NAME --base-url URL --mch-no MCH_NO --app-id APP_ID --private-key-file ${privateKeyFile} --platform-public-key-file PLATFORM_KEY_FILE --use`
}

/** A row of `profile list`. */
export interface ProfileListing {
  name: string
  environment: string
  baseUrl: string
  mchNo: string
  active: boolean
}

/** Every profile, the built-in local one first; `active` marks the one in use. */
export async function listProfiles(store: ProfileStore): Promise<ProfileListing[]> {
  const active = await store.activeName()
  const profiles = await store.list()
  return [
    {name: LOCAL_PROFILE, environment: 'local', baseUrl: '(local sandbox, started on demand)', mchNo: '', active: active === LOCAL_PROFILE},
    ...Object.entries(profiles)
      .filter(([name]) => name !== LOCAL_PROFILE)
      .map(([name, p]) => ({name, environment: p.environment, baseUrl: p.baseUrl ?? '', mchNo: p.mchNo ?? '', active: active === name})),
  ]
}

const noSuchProfile = (name: string) => new ConfigError(`no profile named "${name}"; \`unipay profile list\` shows the profiles`)

/** The name of a profile that exists: the built-in local one, or one stored. */
async function existing(store: ProfileStore, name: string): Promise<string> {
  if (name !== LOCAL_PROFILE && !(await store.get(name))) throw noSuchProfile(name)
  return name
}

/** The profile a command names: --profile, else UNIPAY_PROFILE, else the active one; it must exist. */
async function profileInForce(store: ProfileStore, flag: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  return existing(store, flag ?? (env.UNIPAY_PROFILE || undefined) ?? (await store.activeName()))
}

/** `profile use`: makes an existing profile (or the built-in local one) the active one. */
export async function useProfile(store: ProfileStore, name: string): Promise<void> {
  await store.use(await existing(store, name))
}

/** `profile remove`: the stored profile goes; its key files stay where they are. */
export async function removeProfile(store: ProfileStore, name: string): Promise<void> {
  if (name === LOCAL_PROFILE) throw new UsageError('the built-in local profile cannot be removed')
  if (!(await store.remove(name))) throw new ConfigError(`no profile named "${name}"`)
}

/** Safe facts about the keys of a stored profile: fingerprints, never the keys. */
function keyFacts(profile: Profile): Record<string, string> {
  const facts: Record<string, string> = {}
  const describe = (label: string, load: () => Parameters<typeof keyFingerprint>[0]) => {
    try {
      facts[label] = keyFingerprint(load())
    } catch (error) {
      facts[label] = `unreadable: ${(error as Error).message}`
    }
  }
  if (profile.privateKeyFile) describe('private key', () => loadPrivateKey(readFileSync(profile.privateKeyFile!, 'utf8')))
  else if (profile.privateKey) describe('private key', () => loadPrivateKey(profile.privateKey!))
  if (profile.platformPublicKeyFile) describe('platform key', () => loadPublicKey(readFileSync(profile.platformPublicKeyFile!, 'utf8')))
  else if (profile.platformPublicKey) describe('platform key', () => loadPublicKey(profile.platformPublicKey!))
  return facts
}

/**
 * What `profile show` prints: settings with secrets hidden and keys by file and fingerprint,
 * never key material. The local profile is described from the running sandbox, if any.
 */
function describeProfile(
  name: string,
  profile: Profile,
  active: boolean,
  sandbox?: {url: string; mchNo: string; appId: string; privateKeyFile: string; platformPublicKeyPem: string},
): Record<string, string | boolean> {
  let shown: Profile = profile
  if (name === LOCAL_PROFILE) {
    shown = sandbox
      ? {...profile, baseUrl: sandbox.url, mchNo: sandbox.mchNo, appId: sandbox.appId, privateKeyFile: sandbox.privateKeyFile, platformPublicKey: sandbox.platformPublicKeyPem}
      : {...profile, baseUrl: 'the local sandbox (not running: it starts with the first call)'}
  }
  const settings = redactProfile(shown)
  // A public key is not secret, but a screen of PEM is no use: its fingerprint says which key it is.
  if (settings.platformPublicKey) settings.platformPublicKey = '(inline, see platform key)'
  return {name, active, ...settings, ...keyFacts(shown)}
}

/**
 * `profile show`: the named profile (else --profile's, UNIPAY_PROFILE's or the active one),
 * described as describeProfile says. The built-in local profile is described from the sandbox a
 * call would use: UNIPAY_SANDBOX_DIR's, else the CLI's (`home`), else the one running for another
 * folder (said in a notice).
 */
export async function showProfile(
  store: ProfileStore,
  named: string | undefined,
  {home, env, notice}: {home: string; env: NodeJS.ProcessEnv; notice: (message: string) => void},
): Promise<Record<string, string | boolean>> {
  const name = await profileInForce(store, named, env)
  const active = await store.activeName()
  const runtime = name === LOCAL_PROFILE ? await findRunning(locateSandbox(home, undefined, env), notice) : undefined
  return describeProfile(
    name,
    (await store.get(name)) ?? {environment: 'local'},
    active === name,
    runtime && {url: runtime.url, mchNo: runtime.merchant.mchNo, appId: runtime.merchant.appId, privateKeyFile: runtime.merchant.privateKeyFile, platformPublicKeyPem: runtime.platformPublicKeyPem},
  )
}

/** Keeps a management session token in the profile (the built-in local one included). */
export async function storeToken(store: ProfileStore, name: string, token: string): Promise<void> {
  const profile = (await store.get(name)) ?? (name === LOCAL_PROFILE ? {environment: 'local' as const} : undefined)
  if (!profile) throw new ConfigError(`no profile named "${name}"`)
  await store.save(name, {...profile, token})
}

/**
 * `mch logout`: the management session of the profile in force ends: its stored token is
 * dropped. `loggedOut` false when it had none.
 */
export async function endSession(store: ProfileStore, flag: string | undefined, env: NodeJS.ProcessEnv): Promise<{profile: string; loggedOut: boolean}> {
  const name = await profileInForce(store, flag, env)
  const profile = await store.get(name)
  if (!profile?.token) return {profile: name, loggedOut: false}
  const {token: _dropped, ...rest} = profile
  await store.save(name, rest)
  return {profile: name, loggedOut: true}
}
