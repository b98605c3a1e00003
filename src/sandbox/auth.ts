// Authorization sessions: generate-auth-url opens one; the payer approves it on the auth page
// (the sandbox's stand-in for the wallet's OAuth screen), which issues an auth code and an
// openId; `auth` and `auth-and-set` exchange them. Rules (protocol-notes section 4): a queryCode
// is waiting until approved, then success, and not_exist when unknown or older than 5 minutes;
// an authToken (and the code issued with it) is single-use, a spent or expired one is 20080.
// auth-and-set keeps the openId per merchant app, so a later walletA_jsapi payment of that app
// may leave openId out.
import {randomBytes, randomInt} from 'node:crypto'
import {unsignedEndpoints} from '../protocol/endpoints.js'
import {JsonSyntaxError, parseJsonObject, toPlain} from '../protocol/json.js'
import {authCodeFields, checkFields, OPENID_METHODS, type AuthCodeRequest, type GenerateAuthUrlRequest} from '../protocol/schemas.js'
import {PlatformFailure, fail} from './errors.js'
import type {Store} from './store.js'

export const AUTH_SESSION_TTL_MS = 5 * 60 * 1000
const CHANNELS = ['walletA', 'walletB', 'walletC', 'walletD']

export interface AuthSession {
  queryCode: string
  authToken: string
  mchNo: string
  appId: string
  channel: string
  authType: string
  product?: string
  capability?: string
  returnPath?: string
  createdAtMs: number
  status: 'waiting' | 'success'
  /** Issued on approval. */
  authCode?: string
  openId?: string
  userId?: string
  accessToken?: string
  /** The authToken / authCode were exchanged once; they are single-use. */
  spent: boolean
}

interface StoredOpenId {
  openId: string
  authType: string
}

type AuthAnswer = {status: 'waiting' | 'not_exist'} | {status: 'success'; openId: string; userId?: string; accessToken?: string; returnPath?: string}

interface AuthDeps {
  store: Store
  now: () => Date
  publicUrl: () => string
}

export class AuthSessions {
  private readonly byToken = new Map<string, string>()
  private readonly byCode = new Map<string, string>()
  private readonly byOpenId = new Map<string, string>()

  constructor(private readonly deps: AuthDeps) {
    for (const session of deps.store.values<AuthSession>('authSessions')) this.index(session)
  }

  /** generate-auth-url: {authUrl, queryCode, authToken}. */
  create(request: GenerateAuthUrlRequest, appId: string) {
    const authType = request.authType ?? 'walletA'
    const family = authType.replace(/_.*$/, '')
    const channel = request.channel ?? family
    if (!CHANNELS.includes(channel)) fail(20011, `channel ${channel} is unknown`)
    if (channel !== family) fail(10506, `authType: ${authType} does not belong to channel ${channel}`)
    const session: AuthSession = {
      queryCode: `Q${randomBytes(12).toString('hex')}`,
      authToken: randomBytes(16).toString('hex'),
      mchNo: request.mchNo,
      appId,
      channel,
      authType,
      product: request.product,
      capability: request.capability,
      returnPath: request.returnPath,
      createdAtMs: this.deps.now().getTime(),
      status: 'waiting',
      spent: false,
    }
    this.save(session)
    const {queryCode, authToken} = session
    return {authUrl: `${this.deps.publicUrl()}/auth/${queryCode}`, queryCode, authToken}
  }

  /** The session behind an auth page link, or why there is none. */
  view(queryCode: string): AuthSession | 'expired' | undefined {
    const session = this.deps.store.get<AuthSession>('authSessions', queryCode)
    if (!session) return undefined
    return this.expired(session) ? 'expired' : session
  }

  /** The payer approves on the auth page: the wallet issues a code and the payer's ids. */
  approve(session: AuthSession): AuthSession {
    if (session.status === 'success') return session
    return this.save({
      ...session,
      status: 'success',
      authCode: `AC${randomBytes(12).toString('hex')}`,
      openId: `o${randomBytes(14).toString('base64url')}`,
      userId: session.channel === 'walletB' ? `2088${randomDigits(12)}` : undefined,
      accessToken: session.channel === 'walletA' ? `at_${randomBytes(16).toString('hex')}` : undefined,
    })
  }

  /** `auth`: the AuthResult. `auth-and-set` (set): only success answers code 0, and keeps the openId. */
  exchange(request: AuthCodeRequest, appId: string, set: boolean): AuthAnswer | null {
    const [answer, session] = this.resolve(request, appId)
    if (!set) return answer
    if (answer.status !== 'success') {
      return fail(20080, answer.status === 'waiting' ? 'the payer has not authorized yet (status waiting); poll again' : `queryCode ${request.queryCode} is unknown or expired (status not_exist)`)
    }
    const stored: StoredOpenId = {openId: answer.openId, authType: session!.authType}
    this.deps.store.put('authOpenIds', `${request.mchNo}\u0000${appId}`, stored)
    return null
  }

  /** The unsigned auth-code endpoints (POST): Result {code, message, data}; undefined for other paths. */
  unsignedCall(method: string, path: string, rawText: string): {code: number; message: string; data: unknown} | undefined {
    const set = path === unsignedEndpoints.authAndSet.path
    if (method !== 'POST' || (!set && path !== unsignedEndpoints.auth.path)) return undefined
    try {
      let body: unknown
      try {
        body = toPlain(parseJsonObject(rawText))
      } catch (error) {
        return fail(10505, `request body is not JSON: ${(error as JsonSyntaxError).message}`)
      }
      const problems = checkFields(authCodeFields, body)
      if (problems.length > 0) fail(10506, problems.map((p) => `${p.field}: ${p.message}`).join('; '))
      const request = body as AuthCodeRequest
      const merchant = this.deps.store.get<{appIds: string[]; defaultAppId: string}>('merchants', request.mchNo)
      if (!merchant) return fail(20023, `merchant ${request.mchNo} is unknown or disabled`)
      const appId = request.appId || merchant.defaultAppId
      if (!merchant.appIds.includes(appId)) fail(20023, `app ${appId} is not configured for merchant ${request.mchNo}`)
      return {code: 0, message: 'success', data: this.exchange(request, appId, set)}
    } catch (error) {
      if (error instanceof PlatformFailure) return {code: error.code, message: error.message, data: null}
      throw error
    }
  }

  /** A walletA_jsapi / walletA_mini payment without openId takes the one auth-and-set stored for its app; none stored is a field error. */
  fillStoredOpenId(mchNo: string, appId: string, body: Record<string, unknown>): void {
    if (typeof body.method !== 'string' || !OPENID_METHODS.includes(body.method) || body.openId) return
    const stored = this.deps.store.get<StoredOpenId>('authOpenIds', `${mchNo}\u0000${appId}`)
    if (stored?.authType === 'walletA') body.openId = stored.openId
    else fail(10506, `openId: is required for ${body.method}`)
  }

  private resolve(request: AuthCodeRequest, appId: string): [AuthAnswer, AuthSession?] {
    const mine = (session: AuthSession | undefined) => (session && session.mchNo === request.mchNo && session.appId === appId ? session : undefined)
    if (request.queryCode) {
      const session = mine(this.deps.store.get<AuthSession>('authSessions', request.queryCode))
      if (!session || this.expired(session)) return [{status: 'not_exist'}]
      if (request.authToken && request.authToken !== session.authToken) fail(20080, 'authToken and queryCode belong to different authorization sessions')
      // A poller (often another device) never sees the auth code, so only the token is checked.
      const proven = request.authCode === session.authCode
      return [request.authToken ? this.spend(session, 'authToken', proven) : this.success(session, {proven}), session]
    }
    if (request.authToken) {
      const session = mine(this.sessionBy(this.byToken, request.authToken))
      if (!session) return fail(20080, `authToken ${request.authToken} is unknown to this merchant app`)
      if (this.expired(session)) fail(20080, `authToken ${request.authToken} has expired (sessions last 5 minutes): generate a new authorization URL`)
      if (session.status === 'success' && request.authCode !== session.authCode && request.authCode !== session.openId) {
        fail(20080, 'authCode does not belong to this authorization session')
      }
      return [this.spend(session, 'authToken', request.authCode === session.authCode), session]
    }
    const byCode = mine(this.sessionBy(this.byCode, request.authCode))
    if (byCode) {
      if (this.expired(byCode)) fail(20080, 'authCode has expired (codes last 5 minutes)')
      return [this.spend(byCode, 'authCode', true), byCode]
    }
    // The spec allows an already obtained openId in place of a code: answered, but an openId is
    // no secret (payments and callbacks carry it), so it never fetches the wallet's accessToken.
    const byOpenId = mine(this.sessionBy(this.byOpenId, request.authCode))
    if (byOpenId) return [this.success(byOpenId, {restored: false}), byOpenId]
    return fail(20080, `authCode ${request.authCode} is unknown: get one by approving an authorization URL`)
  }

  /** `proven`: the request carried the session's auth code itself, the one thing that earns the accessToken. */
  private spend(session: AuthSession, what: 'authToken' | 'authCode', proven: boolean): AuthAnswer {
    if (session.status === 'waiting') return {status: 'waiting'}
    if (session.spent) {
      fail(20080, `${what} ${what === 'authToken' ? session.authToken : session.authCode} was already used: it is single-use; generate a new authorization URL`)
    }
    return this.success(this.save({...session, spent: true}), {proven})
  }

  /** The AuthResult; the accessToken only for a real code exchange (`proven`), the returnPath when a session is restored. */
  private success(session: AuthSession, {restored = true, proven = false} = {}): AuthAnswer {
    if (session.status === 'waiting') return {status: 'waiting'}
    const {openId, userId, accessToken, returnPath} = session
    return {status: 'success', openId: openId!, userId, accessToken: proven ? accessToken : undefined, returnPath: restored ? returnPath : undefined}
  }

  private sessionBy(index: Map<string, string>, key: string): AuthSession | undefined {
    const queryCode = index.get(key)
    return queryCode ? this.deps.store.get<AuthSession>('authSessions', queryCode) : undefined
  }

  private expired(session: AuthSession): boolean {
    return this.deps.now().getTime() - session.createdAtMs > AUTH_SESSION_TTL_MS
  }

  private save(session: AuthSession): AuthSession {
    this.deps.store.put('authSessions', session.queryCode, session)
    this.index(session)
    return session
  }

  private index(session: AuthSession): void {
    this.byToken.set(session.authToken, session.queryCode)
    if (session.authCode) this.byCode.set(session.authCode, session.queryCode)
    if (session.openId) this.byOpenId.set(session.openId, session.queryCode)
  }
}

function randomDigits(count: number): string {
  return Array.from({length: count}, () => randomInt(10)).join('')
}
