// Listening: the data folder (keys, journal), the default merchant, and an HTTP server on the
// given port (0 picks a free one, as tests do).
import {randomBytes} from 'node:crypto'
import {mkdirSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {sandboxDir, type SandboxRuntime} from '../protocol/local-sandbox.js'
import {createSandboxApp, type Merchant, type SandboxApp, type SandboxOptions} from './app.js'
import {ensureKeyPair} from './keys.js'
import {md5KeyFiles} from './epay.js'
import {Store, type JournalWrite} from './store.js'

const DEFAULT_MERCHANT = {mchNo: 'M1000000001', appId: 'A1000000001'}

export interface StartOptions {
  dataDir: string
  port?: number
  host?: string
  timeScale?: number
  replayChecks?: boolean
  tokenTtlSeconds?: number
  /** Where the default merchant's V1 MD5 key goes in the string: directly (default) or as `&key=`. */
  epayMd5KeyForm?: 'direct' | 'param'
  /** The platform clock (tests move it forward). */
  now?: () => Date
  /** Start-up reports (skipped journal lines); the daemon's stderr goes to sandbox.log. */
  log?: (line: string) => void
  /** When the port is taken, take a free one instead of failing (for a remembered, not a requested, port). */
  portFallback?: boolean
  /** Called with each request once answered. */
  onRequest?: SandboxOptions['onRequest']
  /** The control secret; a new random one by default. */
  controlSecret?: string
  /** Told once when the journal cannot be written (a full disk): the daemon stops on it. Logged by default. */
  onJournalFailure?: (message: string) => void
  /** The journal's write (tests inject short and failing ones). */
  journalWrite?: JournalWrite
}

export interface RunningSandbox {
  url: string
  app: SandboxApp
  runtime: SandboxRuntime
  close(): Promise<void>
}

export async function startSandbox(options: StartOptions): Promise<RunningSandbox> {
  const dir = sandboxDir(options.dataDir)
  mkdirSync(dir, {recursive: true, mode: 0o700})
  const platform = ensureKeyPair(join(dir, 'keys'), 'platform')
  const merchantKeys = ensureKeyPair(join(dir, 'keys'), 'merchant')
  const login = ensureKeyPair(join(dir, 'keys'), 'login')
  const md5Keys = md5KeyFiles(join(dir, 'keys'), {mchNo: DEFAULT_MERCHANT.mchNo, md5KeyForm: options.epayMd5KeyForm})
  const md5KeyFile = md5Keys.issue(DEFAULT_MERCHANT.mchNo)
  const log = options.log ?? ((line: string) => process.stderr.write(`sandbox: ${line}\n`))
  const store = new Store(join(dir, 'journal.jsonl'), log, {write: options.journalWrite, onFailure: options.onJournalFailure ?? log}).open()
  let url = ''
  const controlSecret = options.controlSecret ?? randomBytes(32).toString('base64url')
  const app = createSandboxApp({
    store,
    platformPrivateKeyPem: platform.privateKeyPem,
    loginPrivateKeyPem: login.privateKeyPem,
    tokenTtlSeconds: options.tokenTtlSeconds,
    timeScale: options.timeScale,
    now: options.now,
    replayChecks: options.replayChecks,
    publicUrl: () => url,
    controlSecret,
    onRequest: options.onRequest,
    epayMd5Keys: md5Keys,
  })
  if (!store.get<Merchant>('merchants', DEFAULT_MERCHANT.mchNo)) {
    app.registerMerchant({
      mchNo: DEFAULT_MERCHANT.mchNo,
      appIds: [DEFAULT_MERCHANT.appId],
      defaultAppId: DEFAULT_MERCHANT.appId,
      publicKeyPem: merchantKeys.publicKeyPem,
    })
  }
  const server: Server = createServer((req, res) => void app.handle(req, res))
  server.keepAliveTimeout = 5000
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, options.host ?? '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  try {
    await listen(options.port ?? 0)
  } catch (error) {
    if (!options.portFallback || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    await listen(0)
  }
  const address = server.address() as AddressInfo
  url = `http://${address.address}:${address.port}`
  app.start()
  const runtime: SandboxRuntime = {
    pid: process.pid,
    url,
    startedAt: new Date().toISOString(),
    dataDir: options.dataDir,
    controlSecret,
    platformPublicKeyPem: platform.publicKeyPem,
    merchant: {...DEFAULT_MERCHANT, privateKeyFile: merchantKeys.privateKeyFile, publicKeyPem: merchantKeys.publicKeyPem, md5KeyFile},
  }
  return {
    url,
    app,
    runtime,
    async close() {
      app.stop()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      store.close()
    },
  }
}
