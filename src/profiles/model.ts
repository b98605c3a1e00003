// A merchant profile: where to call and with which credentials. Secrets (keys, MD5 key,
// token) are stored but never printed; `redactProfile` is what every display goes through.
const ENVIRONMENTS = ['local', 'sandbox', 'production'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

export interface Profile {
  environment: Environment
  baseUrl?: string
  mchNo?: string
  appId?: string
  channelMchNo?: string
  privateKeyFile?: string
  /** Inline PEM or Base64; prefer privateKeyFile. */
  privateKey?: string
  platformPublicKeyFile?: string
  platformPublicKey?: string
  md5Key?: string
  pid?: string
  token?: string
  /** Allocation receiver amounts: the spec's yuan, or cents for platforms that take cents. */
  allocAmountUnit?: 'yuan' | 'cents'
  /** Compatibility module V2: send `type`/`method` in the order common epay clients use (type = wallet). */
  epayTypeMethodSwapped?: 'true' | 'false'
  /** Compatibility module V1: append the MD5 key directly (the rule) or as `&key=KEY`. */
  md5KeyAppendForm?: 'direct' | 'key-param'
}

export const LOCAL_PROFILE = 'local'

interface SettingSpec {
  key: keyof Profile
  description: string
  secret?: boolean
  values?: readonly string[]
}

export const SETTINGS: SettingSpec[] = [
  {key: 'environment', description: 'local, sandbox or production', values: ENVIRONMENTS},
  {key: 'baseUrl', description: 'platform address, e.g. https://pay.example.com'},
  {key: 'mchNo', description: 'merchant number'},
  {key: 'appId', description: 'application id (blank: the merchant\'s default app)'},
  {key: 'channelMchNo', description: 'channel merchant number of transfers (other calls sign one only with --channel-mch-no)'},
  {key: 'privateKeyFile', description: 'merchant private key file (PEM or Base64)'},
  {key: 'privateKey', description: 'merchant private key, inline', secret: true},
  {key: 'platformPublicKeyFile', description: 'platform public key file'},
  {key: 'platformPublicKey', description: 'platform public key, inline'},
  {key: 'md5Key', description: 'MD5 key of the compatibility module', secret: true},
  {key: 'pid', description: 'merchant number for the compatibility module'},
  {key: 'token', description: 'management API session token', secret: true},
  {key: 'allocAmountUnit', description: 'allocation receiver amounts: yuan or cents', values: ['yuan', 'cents']},
  {key: 'epayTypeMethodSwapped', description: 'epay V2: true sends type=wallet and method=web|jump|jsapi|app, as common epay clients do', values: ['false', 'true']},
  {key: 'md5KeyAppendForm', description: 'epay V1: the MD5 key appended directly (direct) or as &key=KEY (key-param)', values: ['direct', 'key-param']},
]

export const isSecret = (key: string) => SETTINGS.some((s) => s.key === key && s.secret)

/** The profile with every secret replaced by a marker; safe to print. */
export function redactProfile(profile: Profile): Record<string, string> {
  const out: Record<string, string> = {}
  for (const {key} of SETTINGS) {
    const value = profile[key]
    if (value === undefined || value === '') continue
    out[key] = isSecret(key) ? '(set, hidden)' : String(value)
  }
  return out
}
