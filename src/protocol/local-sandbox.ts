// What the local sandbox publishes about itself, so that the CLI can use it without importing
// it: a runtime file in the sandbox's data folder, written once it listens.
import {join} from 'node:path'

export interface SandboxRuntime {
  pid: number
  url: string
  startedAt: string
  dataDir: string
  /** Sent in CONTROL_SECRET_HEADER on every control call; new at each start, kept only in this 0600 file. */
  controlSecret: string
  platformPublicKeyPem: string
  /** md5KeyFile: the file holding the compatibility module's V1 MD5 key (the key itself is never published). */
  merchant: {mchNo: string; appId: string; privateKeyFile: string; publicKeyPem: string; md5KeyFile?: string}
}

export const sandboxDir = (dataDir: string) => join(dataDir, 'sandbox')
export const sandboxRuntimeFile = (dataDir: string) => join(sandboxDir(dataDir), 'runtime.json')
/** The last port the sandbox listened on: the next start takes it again, so printed links keep working. */
export const sandboxPortFile = (dataDir: string) => join(sandboxDir(dataDir), 'port')

/** Faults the sandbox can inject into /unipay/* and /epay/* calls (see `sandbox faults add`). */
export const SANDBOX_FAULTS = ['latency', 'http-500', 'not-json', 'reset', 'timeout', 'unsigned-success', 'bad-signature'] as const
export type SandboxFault = (typeof SANDBOX_FAULTS)[number]

/** An armed fault, as `/_sandbox/faults` keeps and answers it. */
export interface FaultRule {
  fault: SandboxFault
  /** Requests left to spoil. */
  remaining: number
  /** Only requests to this path (default: every call, a signature fault only where answers are signed). */
  path?: string
  latencyMs?: number
}

/** An allocation receiver bound on the channel side, as `/_sandbox/receivers` answers it. */
export interface BoundReceiver {
  mchNo: string
  receiverType: string
  receiverAccount: string
  receiverName?: string
  boundAt: string
}

/** The channel merchant numbers a sandbox merchant has (a channelMchNo outside them is 20023). */
export const SANDBOX_CHANNEL_MCH_NOS = ['CM_SANDBOX', 'CM1', 'CM2']

/** The header carrying the per-start control secret on every `/_sandbox/*` call. */
export const CONTROL_SECRET_HEADER = 'x-unipay-sandbox-secret'

/** What `sandbox trigger` can drive an object to: each /unipay callback event. */
export const TRIGGER_EVENTS = [
  'pay.success', 'pay.fail', 'pay.close',
  'refund.success', 'refund.fail', 'refund.close',
  'alloc.success', 'alloc.partial', 'alloc.fail',
  'transfer.success', 'transfer.fail', 'transfer.close',
] as const
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number]
