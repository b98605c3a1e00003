// The sandbox platform as a request handler (no listening here): the composition root. It
// builds the domain services on one store and one clock, and wires the parts that answer
// requests: the signed API (signed-api.ts), the control plane (control.ts), the management API
// (management-api.ts), pages, dashboard and epay, in the order dispatch.ts sets down.
import {createPrivateKey, createPublicKey} from 'node:crypto'
import {loadPrivateKey} from '../protocol/keys.js'
import {AllocService} from './alloc.js'
import {AuthSessions} from './auth.js'
import {createControl} from './control.js'
import {createDashboard} from './dashboard.js'
import {createDispatcher, sandboxRoutes} from './dispatch.js'
import {createEpay, epayCallOf, type Md5Keys} from './epay.js'
import {Faults} from './faults.js'
import {GatewayService} from './gateway.js'
import {ownHosts} from './guard.js'
import {createManagementApi} from './management-api.js'
import {DEFAULT_TOKEN_TTL_SECONDS, Management} from './management.js'
import {Notifier} from './notifier.js'
import {createPages} from './pages.js'
import {PayService} from './pay.js'
import {RefundService} from './refund.js'
import {ReplayGuard} from './replay.js'
import {RequestLog, type RequestLogEntry} from './request-log.js'
import {createSignedApi, type Merchant} from './signed-api.js'
import type {Store} from './store.js'
import {TransferService} from './transfer.js'

export type {Merchant} from './signed-api.js'

export interface SandboxOptions {
  store: Store
  platformPrivateKeyPem: string
  /** The management API's login key pair (passwords are encrypted with its public key). */
  loginPrivateKeyPem: string
  tokenTtlSeconds?: number
  now?: () => Date
  timeScale?: number
  /** Replay and reqTime checks (on by default, as on the platform). */
  replayChecks?: boolean
  publicUrl: () => string
  /** Required in every control call (see guard.ts). */
  controlSecret: string
  /** Called with each request once answered (the foreground mode prints them). */
  onRequest?: (entry: RequestLogEntry) => void
  /** MD5 keys of the compatibility module's V1, by merchant number: every merchant registered gets one. */
  epayMd5Keys?: Md5Keys
}

export function createSandboxApp(options: SandboxOptions) {
  // The sandbox clock: real time plus an offset that `sandbox clock advance` moves forward (kept
  // in the journal, so a restart keeps it). Clients sign with the real time, so replay and
  // timestamp windows compare with realNow.
  const realNow = options.now ?? (() => new Date())
  const {store} = options
  let clockOffsetMs = store.get<number>('meta', 'clockOffsetMs') ?? 0
  const now = () => new Date(realNow().getTime() + clockOffsetMs)
  const platformKey = loadPrivateKey(options.platformPrivateKeyPem)
  const notifier = new Notifier({store, platformKey, timeScale: options.timeScale ?? 1, now, signingNow: realNow})
  const clockOffset = () => clockOffsetMs
  // pay and gateway orders share one bizOrderNo space (notes §4); the gateway is built after pay
  const pay = new PayService({store, notifier, now, publicUrl: options.publicUrl, clockOffsetMs: clockOffset, gatewayOrderNoOf: (mchNo, bizOrderNo) => gateway.orderNoOf(mchNo, bizOrderNo)})
  const refunds = new RefundService({store, pay, notifier, now, timeScale: options.timeScale ?? 1})
  const loginKey = createPrivateKey(options.loginPrivateKeyPem)
  const management = new Management({
    store,
    refunds,
    loginKeyPem: options.loginPrivateKeyPem,
    loginPublicKeyDer: createPublicKey(loginKey).export({format: 'der', type: 'spki'}).toString('base64'),
    now,
    tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS,
  })
  const allocs = new AllocService({store, pay, notifier, now, timeScale: options.timeScale ?? 1})
  const transfers = new TransferService({store, notifier, now, timeScale: options.timeScale ?? 1, publicUrl: options.publicUrl})
  const gateway: GatewayService = new GatewayService({store, notifier, pay, now, publicUrl: options.publicUrl, clockOffsetMs: clockOffset})
  const authSessions = new AuthSessions({store, now, publicUrl: options.publicUrl})
  const pages = createPages({gateway, pay, auth: authSessions, now, publicUrl: options.publicUrl})
  const replay = new ReplayGuard(realNow, store)
  // what a fault's path reaches, known once the signed API and epay are built below
  const faults = new Faults((path) => (signedApi.serves(path) ? {path, kind: 'signed'} : epayCallOf(path)))
  const requestLog = new RequestLog(options.onRequest)
  const dashboard = createDashboard({store, pay, refunds, transfers, notifier, publicUrl: options.publicUrl})
  const epay = createEpay({
    store, pay, refunds, notifier, platformKey, now, clientNow: realNow, publicUrl: options.publicUrl,
    md5Keys: (mchNo) => options.epayMd5Keys?.get(mchNo),
    timestampChecks: options.replayChecks !== false,
    replay: options.replayChecks !== false ? replay : undefined,
  })
  const signedApi = createSignedApi({
    store, notifier, pay, refunds, allocs, transfers, gateway, authSessions, faults, platformKey, realNow, publicUrl: options.publicUrl,
    replay: options.replayChecks !== false ? replay : undefined,
  })
  // only pages and control calls check Host: signed API calls skip parsing the address
  const hosts = () => ownHosts(options.publicUrl())
  const control = createControl({
    store, pay, refunds, allocs, transfers, gateway, notifier, management, faults, requestLog, registerMerchant, hosts,
    md5Keys: options.epayMd5Keys,
    dashboardTicket: () => dashboard.issueTicket(),
    controlSecret: options.controlSecret,
    publicUrl: options.publicUrl,
    clock: {
      now,
      offsetMs: () => clockOffsetMs,
      advance(ms) {
        // in memory only once in the journal
        store.put('meta', 'clockOffsetMs', clockOffsetMs + ms)
        clockOffsetMs += ms
        catchUp()
      },
    },
  })
  const handle = createDispatcher(
    sandboxRoutes({now, hosts, dashboard, pages, authSessions, transfers, managementApi: createManagementApi(management), control, epay, signedApi, faults}),
    requestLog,
  )

  /** Applies at once what the moved clock made due: expiries, settlements, closes, callback retries. */
  function catchUp(): void {
    pay.expireDue()
    gateway.expireDue()
    refunds.settleDue()
    allocs.settleDue()
    transfers.settleDue()
    notifier.wake()
  }

  function registerMerchant(merchant: Merchant): void {
    store.put('merchants', merchant.mchNo, merchant)
    signedApi.forgetKey(merchant.mchNo)
    options.epayMd5Keys?.issue(merchant.mchNo)
  }
  // merchants registered before every merchant got an MD5 key get theirs now
  for (const merchant of store.values<Merchant>('merchants')) options.epayMd5Keys?.issue(merchant.mchNo)

  return {
    handle,
    registerMerchant,
    start() {
      notifier.start()
      pay.startExpiry()
      refunds.start()
      allocs.start()
      transfers.start()
      gateway.startExpiry()
    },
    stop() {
      notifier.stop()
      pay.stop()
      refunds.stop()
      allocs.stop()
      transfers.stop()
      gateway.stop()
    },
  }
}

export type SandboxApp = ReturnType<typeof createSandboxApp>
