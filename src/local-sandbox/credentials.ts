// What a third-party client (the integrator's own backend) needs to call the local sandbox:
// addresses, merchant ids, key files and the platform public key. Key files are named, never
// their secret contents.
import {EPAY_V1_PATHS, EPAY_V2_PREFIX} from '../protocol/epay-api.js'
import type {SandboxRuntime} from '../protocol/local-sandbox.js'

export interface SandboxCredentials {
  baseUrl: string
  mchNo: string
  appId: string
  merchantPrivateKeyFile: string
  platformPublicKeyPem: string
  /** The same key as bare Base64 (SPKI DER), as many SDK settings want it. */
  platformPublicKey: string
  epayV1BaseUrl: string
  epayV2BaseUrl: string
  epayV1Md5KeyFile?: string
}

export function sandboxCredentials(runtime: SandboxRuntime): SandboxCredentials {
  const base = (path: string) => `${runtime.url}${path.slice(0, path.lastIndexOf('/') + 1)}`
  return {
    baseUrl: runtime.url,
    mchNo: runtime.merchant.mchNo,
    appId: runtime.merchant.appId,
    merchantPrivateKeyFile: runtime.merchant.privateKeyFile,
    platformPublicKeyPem: runtime.platformPublicKeyPem.trim(),
    platformPublicKey: runtime.platformPublicKeyPem.replace(/-----[^-]+-----|\s/g, ''),
    epayV1BaseUrl: base(EPAY_V1_PATHS.create),
    // V2 clients append `api/pay/create` and the like to their base
    epayV2BaseUrl: `${runtime.url}${EPAY_V2_PREFIX.replace(/api\/pay\/$/, '')}`,
    epayV1Md5KeyFile: runtime.merchant.md5KeyFile,
  }
}

const ENV_NAMES: Record<keyof SandboxCredentials, string> = {
  baseUrl: 'UNIPAY_SANDBOX_BASE_URL',
  mchNo: 'UNIPAY_SANDBOX_MCH_NO',
  appId: 'UNIPAY_SANDBOX_APP_ID',
  merchantPrivateKeyFile: 'UNIPAY_SANDBOX_PRIVATE_KEY_FILE',
  platformPublicKeyPem: '',
  platformPublicKey: 'UNIPAY_SANDBOX_PLATFORM_PUBLIC_KEY',
  epayV1BaseUrl: 'UNIPAY_SANDBOX_EPAY_V1_BASE_URL',
  epayV2BaseUrl: 'UNIPAY_SANDBOX_EPAY_V2_BASE_URL',
  epayV1Md5KeyFile: 'UNIPAY_SANDBOX_EPAY_MD5_KEY_FILE',
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
    .filter((key) => key !== 'platformPublicKeyPem' && credentials[key] !== undefined)
    .map((key) => `unipay.sandbox.${key}=${String(credentials[key]).replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/=/g, '\\=')}`)
    .join('\n')
}

export const shellQuote = (value: string) => (/^[\w@%+=:,./-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`)
