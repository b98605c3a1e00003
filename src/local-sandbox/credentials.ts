// What a third-party client (the integrator's own backend, a shop's epay client) needs to call
// the local sandbox: addresses, merchant ids, key files and the platform public key. Key files
// are named, never their secret contents; the merchant private key is also kept as bare Base64,
// the form epay V2 client configs take.
import {readFileSync, writeFileSync} from 'node:fs'
import {EPAY_V1_PATHS, EPAY_V2_PREFIX} from '../protocol/epay-api.js'
import type {SandboxRuntime} from '../protocol/local-sandbox.js'

export interface SandboxCredentials {
  baseUrl: string
  mchNo: string
  appId: string
  merchantPrivateKeyFile: string
  /** The same key as bare Base64 (the DER inside the PEM; no armour, no newline), as epay V2 client configs take it. */
  merchantPrivateKeyBase64File: string
  platformPublicKeyPem: string
  /** The same key as bare Base64 (SPKI DER), as many SDK settings want it. */
  platformPublicKey: string
  /** The compatibility module's merchant number (`pid`): the mchNo. */
  epayPid: string
  epayV1BaseUrl: string
  epayV2BaseUrl: string
  /** The V1 MD5 key: its characters alone, no trailing newline. */
  epayV1Md5KeyFile?: string
  /** Receiver amounts of this merchant's allocations, in requests and answers (`sandbox merchants set`). */
  allocAmountUnit: AllocAmountUnit
  /** Every merchant of the sandbox, with its allocation amount unit and its V1 MD5 key file. */
  merchants: SandboxMerchant[]
}

/** A merchant of the sandbox as its control API lists it (the key file by name, never its key). */
export interface SandboxMerchant {
  mchNo: string
  appId: string
  allocAmountUnit: AllocAmountUnit
  epayV1Md5KeyFile?: string
}

/** Bare Base64 of a PEM key, written beside it (0600) when missing or out of date; its path. */
function base64KeyFile(pemFile: string): string {
  const file = `${pemFile.replace(/\.pem$/, '')}.b64`
  const base64 = readFileSync(pemFile, 'utf8').replace(/-----[^-]+-----|\s/g, '')
  let current: string | undefined
  try {
    current = readFileSync(file, 'utf8')
  } catch {
    // not written yet
  }
  if (current !== base64) writeFileSync(file, base64, {mode: 0o600})
  return file
}

type AllocAmountUnit = 'yuan' | 'cents'

/** The credentials of a running sandbox (writes the private key's Base64 file when needed). */
export function sandboxCredentials(runtime: SandboxRuntime, merchants: SandboxCredentials['merchants']): SandboxCredentials {
  const base = (path: string) => `${runtime.url}${path.slice(0, path.lastIndexOf('/') + 1)}`
  return {
    baseUrl: runtime.url,
    mchNo: runtime.merchant.mchNo,
    appId: runtime.merchant.appId,
    merchantPrivateKeyFile: runtime.merchant.privateKeyFile,
    merchantPrivateKeyBase64File: base64KeyFile(runtime.merchant.privateKeyFile),
    platformPublicKeyPem: runtime.platformPublicKeyPem.trim(),
    platformPublicKey: runtime.platformPublicKeyPem.replace(/-----[^-]+-----|\s/g, ''),
    epayPid: runtime.merchant.mchNo,
    epayV1BaseUrl: base(EPAY_V1_PATHS.create),
    // V2 clients append `api/pay/create` and the like to their base
    epayV2BaseUrl: `${runtime.url}${EPAY_V2_PREFIX.replace(/api\/pay\/$/, '')}`,
    epayV1Md5KeyFile: runtime.merchant.md5KeyFile,
    allocAmountUnit: merchants.find((m) => m.mchNo === runtime.merchant.mchNo)?.allocAmountUnit ?? 'yuan',
    // this merchant first
    merchants: [...merchants].sort((a, b) => Number(b.mchNo === runtime.merchant.mchNo) - Number(a.mchNo === runtime.merchant.mchNo)),
  }
}
