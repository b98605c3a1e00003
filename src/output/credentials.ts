// \`sandbox credentials --format env|properties\`: the credentials as lines a .env or a
// .properties file takes.
import type {SandboxCredentials} from '../services/sandbox.js'
import {shellQuote} from './shell.js'

const ENV_NAMES: Record<keyof SandboxCredentials, string> = {
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

/** One `NAME=value` line per credential (the PEM, multi-line, only as bare Base64), ready for a .env file. */
export function credentialsAsEnv(credentials: SandboxCredentials): string {
  return (Object.keys(ENV_NAMES) as (keyof SandboxCredentials)[])
    .filter((key) => ENV_NAMES[key] && credentials[key] !== undefined)
    .map((key) => `${ENV_NAMES[key]}=${shellQuote(String(credentials[key]))}`)
    .join('\n')
}

/** Java-style `unipay.sandbox.key=value` lines, for a Spring or plain properties file. */
export function credentialsAsProperties(credentials: SandboxCredentials): string {
  return (Object.keys(credentials) as (keyof SandboxCredentials)[])
    .filter((key) => key !== 'platformPublicKeyPem' && key !== 'merchants' && credentials[key] !== undefined)
    .map((key) => `unipay.sandbox.${key}=${String(credentials[key]).replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/=/g, '\\=')}`)
    .join('\n')
}
