// Next steps for errors that depend on the settings in force: which key verified (and where
// the right one comes from), which profile and address were asked.
import {isKeyMismatch, NotFoundError, PlatformError, type UnipayError} from '../errors.js'
import {keyFingerprint} from '../protocol/keys.js'
import type {ResolvedProfile, Source} from '../profiles/resolve.js'

const TRADE_NOT_FOUND = 20041

const from = (source: Source | undefined) =>
  source === 'flag' ? 'from --platform-public-key' : source === 'env' ? 'from UNIPAY_PLATFORM_PUBLIC_KEY_FILE' : 'from the profile'

/** The platform key in force and where it comes from, as `file (SHA256:..., from ...)`, never the key itself. */
export function describePlatformKey(profile: ResolvedProfile): string {
  const {settings, sources, platformKey} = profile
  const fingerprint = platformKey ? keyFingerprint(platformKey) : 'no key'
  const file = settings.platformPublicKeyFile
  if (file) return `platform key file ${file} (${fingerprint}, ${from(sources.platformPublicKeyFile)})`
  // beside a sandbox started with --data-dir, the local one's key is another sandbox's: say which
  if (sources.platformPublicKey === 'local sandbox') return `local sandbox's platform key (${fingerprint}, at ${settings.baseUrl})`
  return `platform key ${from(sources.platformPublicKey)} (${fingerprint})`
}

/** A hint for `error`, or undefined when the settings add nothing. */
export function settingsHint(error: UnipayError, profile: ResolvedProfile): string | undefined {
  const where = `profile ${profile.name} (mchNo ${profile.settings.mchNo ?? '-'}) at ${profile.settings.baseUrl ?? '-'}`
  if (isKeyMismatch(error)) {
    const source =
      profile.environment === 'local' || profile.sources.baseUrl === 'local sandbox'
        ? 'the local sandbox\'s key is printed by `unipay sandbox status --json` (platformPublicKey)'
        : 'the platform\'s key is issued with the merchant\'s credentials (the merchant console); save it to a file and run `unipay profile set platformPublicKeyFile FILE'
          + ` --profile ${profile.name}\``
    return `verified with the ${describePlatformKey(profile)}, asking ${where};\n${source}`
  }
  if (error instanceof PlatformError && error.code === TRADE_NOT_FOUND) {
    return `asked ${where}: the order may be on another platform or under another merchant; --profile NAME asks another`
  }
  // nothing had the number (lookup): where it was asked, before what was tried
  if (error instanceof NotFoundError) return `asked ${where}; --profile NAME asks another`
  return undefined
}

// oclif dims some of its parse errors on a terminal; printed through printable() its escape
// sequences would show as text (`\u001b[2mMissing required flag ...`)
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const OCLIF_STYLING = /\u001b\[[0-9;]*m/g

/**
 * oclif's parse errors in the tool's style: no "The following error occurred" preamble or "See
 * more help" trailer, and none of oclif's own styling.
 */
export function parseErrorMessage(message: string): string {
  return message
    .replace(OCLIF_STYLING, '')
    .split('\n')
    .filter((line) => line.trim() && !/^The following errors? occurred:$/.test(line.trim()) && !/^See more help with --help$/.test(line.trim()))
    // oclif indents what follows its preamble
    .map((line) => line.replace(/^ {2}/, '').trimEnd())
    .join('\n')
}

/** The flags of the profile a command ran with, which the commands it suggests need too. */
export function profileWords(flags: {profile?: string; 'base-url'?: string; 'private-key'?: string; 'platform-public-key'?: string; timeout?: number; verify?: boolean}): string[] {
  const words: string[] = []
  for (const name of ['profile', 'base-url', 'private-key', 'platform-public-key'] as const) if (flags[name] !== undefined) words.push(`--${name}`, flags[name])
  if (flags.timeout !== undefined && flags.timeout !== 15) words.push('--timeout', String(flags.timeout))
  if (flags.verify === false) words.push('--no-verify')
  return words
}
