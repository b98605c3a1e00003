// What the local sandbox publishes about itself, so that the CLI can use it without importing
// it: a runtime file in the sandbox's data folder, written once it listens.
import {join} from 'node:path'

export interface SandboxRuntime {
  pid: number
  url: string
  startedAt: string
  dataDir: string
  platformPublicKeyPem: string
  merchant: {mchNo: string; appId: string; privateKeyFile: string; publicKeyPem: string}
}

export const sandboxDir = (dataDir: string) => join(dataDir, 'sandbox')
export const sandboxRuntimeFile = (dataDir: string) => join(sandboxDir(dataDir), 'runtime.json')
