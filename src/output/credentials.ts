// \`sandbox credentials --format env|properties\`: the credentials as lines a .env or a
// .properties file takes.
import type {SandboxCredentials} from '../services/sandbox.js'
import {shellQuote} from './shell.js'

// For the integrator's own backend: names unipay itself never reads, so a file sourced into a
// shell changes nothing a unipay profile says.
const ENV_NAMES: Record<keyof SandboxCredentials, string> = {
  dataDir: '',
  baseUrl: 'UNIPAY_SANDBOX_BASE_URL',
  mchNo: 'UNIPAY_SANDBOX_MCH_NO',
  appId: 'UNIPAY_SANDBOX_APP_ID',
  merchantPrivateKeyFile: 'UNIPAY_SANDBOX_PRIVATE_KEY_FILE',
  merchantPrivateKeyBase64File: 'UNIPAY_SANDBOX_PRIVATE_KEY_BASE64_FILE',
  platformPublicKeyPem: '',
  platformPublicKey: 'UNIPAY_SANDBOX_PLATFORM_PUBLIC_KEY',
  epayPid: 'UNIPAY_SANDBOX_EPAY_PID',
  epayV1BaseUrl: 'UNIPAY_SANDBOX_EPAY_V1_BASE_URL',
  epayV2BaseUrl: 'UNIPAY_SANDBOX_EPAY_V2_BASE_URL',
  epayV1Md5KeyFile: 'UNIPAY_SANDBOX_EPAY_MD5_KEY_FILE',
  allocAmountUnit: 'UNIPAY_SANDBOX_ALLOC_AMOUNT_UNIT',
  merchants: '',
}

/**
 * One `NAME=value` line per credential (the PEM, multi-line, only as bare Base64), ready for a
 * .env file. First the two that point unipay itself at this sandbox once the file is sourced:
 * the built-in local profile and this sandbox's folder. No address or key variable of unipay's
 * own (UNIPAY_BASE_URL, UNIPAY_PRIVATE_KEY_FILE, ...): those would win over any profile, so a
 * `--profile prod` run would sign with the sandbox's key or send to its address.
 */
export function credentialsAsEnv(credentials: SandboxCredentials): string {
  const unipay = ['# sourced (set -a; . FILE; set +a), unipay itself uses this sandbox unless --profile names another', 'UNIPAY_PROFILE=local', `UNIPAY_SANDBOX_DIR=${shellQuote(credentials.dataDir)}`]
  const backend = (Object.keys(ENV_NAMES) as (keyof SandboxCredentials)[])
    .filter((key) => ENV_NAMES[key] && credentials[key] !== undefined)
    .map((key) => `${ENV_NAMES[key]}=${shellQuote(String(credentials[key]))}`)
  return [...unipay, '# for your own backend', ...backend].join('\n')
}

/** Java-style `unipay.sandbox.key=value` lines, for a Spring or plain properties file. */
export function credentialsAsProperties(credentials: SandboxCredentials): string {
  return (Object.keys(credentials) as (keyof SandboxCredentials)[])
    .filter((key) => key !== 'platformPublicKeyPem' && key !== 'merchants' && credentials[key] !== undefined)
    .map((key) => `unipay.sandbox.${key}=${String(credentials[key]).replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/=/g, '\\=')}`)
    .join('\n')
}
