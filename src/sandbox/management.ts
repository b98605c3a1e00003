// The management API (protocol-notes section 6): RSA-encrypted password login, session tokens
// with a lifetime, and refund queries in which a merchant user only ever sees its own merchant.
import {constants, createPrivateKey, privateDecrypt, randomBytes, scryptSync, timingSafeEqual, type KeyObject} from 'node:crypto'
import {parseGmt8} from '../protocol/time.js'
import {PlatformFailure, fail} from './errors.js'
import {refundRecord, type RefundOrder, type RefundService} from './refund.js'
import type {Store} from './store.js'

export const DEFAULT_TOKEN_TTL_SECONDS = 72 * 60 * 60

interface MerchantUser {
  account: string
  mchNo: string
  salt: string
  passwordHash: string
}

interface Session {
  token: string
  account: string
  mchNo: string
  expiresAt: number
}

/** An HTTP status with a Result body: 401 and 403 are not business errors. */
export class HttpFailure extends PlatformFailure {
  constructor(
    readonly httpStatus: number,
    code: number,
    message: string,
  ) {
    super(code, message)
  }
}

interface ManagementDeps {
  store: Store
  refunds: RefundService
  loginKeyPem: string
  loginPublicKeyDer: string
  now: () => Date
  tokenTtlSeconds: number
}

const hash = (password: string, salt: string) => scryptSync(password, salt, 32).toString('hex')

export class Management {
  private readonly loginKey: KeyObject

  constructor(private readonly deps: ManagementDeps) {
    this.loginKey = createPrivateKey(deps.loginKeyPem)
  }

  publicKey(): string {
    return this.deps.loginPublicKeyDer
  }

  addUser(account: string, password: string, mchNo: string): {account: string; mchNo: string} {
    if (!account || !password) fail(10506, 'account and password are required')
    const salt = randomBytes(16).toString('hex')
    this.deps.store.put<MerchantUser>('users', account, {account, mchNo, salt, passwordHash: hash(password, salt)})
    return {account, mchNo}
  }

  login(form: URLSearchParams): string {
    const account = form.get('account') ?? ''
    const encrypted = form.get('password') ?? ''
    if (form.get('loginType') !== 'password' || form.get('client') !== 'merchant') {
      fail(10506, 'loginType must be password and client must be merchant')
    }
    const password = this.decrypt(encrypted)
    const user = this.deps.store.get<MerchantUser>('users', account)
    const given = Buffer.from(hash(password ?? '', user?.salt ?? 'none'), 'hex')
    if (!user || password === undefined || !timingSafeEqual(given, Buffer.from(user.passwordHash, 'hex'))) {
      fail(1, 'account or password is wrong')
    }
    const token = randomBytes(24).toString('hex')
    const session: Session = {token, account, mchNo: user!.mchNo, expiresAt: this.deps.now().getTime() + this.deps.tokenTtlSeconds * 1000}
    this.deps.store.put('sessions', token, session)
    return token
  }

  refundPage(token: string | undefined, query: URLSearchParams) {
    const session = this.session(token)
    const current = positive(query.get('current'), 1, 'current')
    const size = positive(query.get('size'), 10, 'size')
    const equal = (field: keyof RefundOrder) => {
      const wanted = query.get(field)
      return (r: RefundOrder) => !wanted || String(r[field] ?? '') === wanted
    }
    const like = (field: keyof RefundOrder) => {
      const wanted = query.get(field)
      return (r: RefundOrder) => !wanted || String(r[field] ?? '').includes(wanted)
    }
    const start = time(query.get('createTimeStart'), 'createTimeStart')
    const end = time(query.get('createTimeEnd'), 'createTimeEnd')
    const filters = [
      (r: RefundOrder) => r.mchNo === session.mchNo, // whatever mchNo the user sends
      equal('mchNo'),
      equal('appId'),
      like('refundNo'),
      like('bizRefundNo'),
      like('tradeNo'),
      (r: RefundOrder) => !query.get('tradeType') || r.channel === query.get('tradeType'),
      like('bizOrderNo'),
      equal('status'),
      equal('product'),
      equal('storeNo'),
      (r: RefundOrder) => start === undefined || r.createdAtMs >= start,
      // the end names a whole second: records stamped within it are in
      (r: RefundOrder) => end === undefined || r.createdAtMs < end + 1000,
    ]
    const matching = this.deps.refunds
      .all()
      .filter((r) => filters.every((f) => f(r)))
      .sort((a, b) => b.createdAtMs - a.createdAtMs || b.id - a.id)
    return {
      records: matching.slice((current - 1) * size, current * size).map(refundRecord),
      total: matching.length,
      size,
      current,
    }
  }

  refundById(token: string | undefined, query: URLSearchParams) {
    const session = this.session(token)
    const id = query.get('id')
    if (!id || !/^\d+$/.test(id)) fail(10506, 'id: is required (a number)')
    const refund = this.deps.refunds.all().find((r) => String(r.id) === id)
    if (!refund) return fail(10405, `no refund with id ${id}`)
    if (refund.mchNo !== session.mchNo) throw new HttpFailure(403, 403, 'this refund belongs to another merchant')
    return refundRecord(refund)
  }

  private session(token: string | undefined): Session {
    const session = token ? this.deps.store.get<Session>('sessions', token) : undefined
    if (!session) throw new HttpFailure(401, 401, 'not logged in: send the Accesstoken header')
    if (session.expiresAt <= this.deps.now().getTime()) throw new HttpFailure(401, 401, 'the session has expired: log in again')
    return session
  }

  /** RSA PKCS#1 v1.5, unpadded by hand: Node refuses PKCS#1 v1.5 private decryption (Marvin). */
  private decrypt(base64: string): string | undefined {
    try {
      const block = privateDecrypt({key: this.loginKey, padding: constants.RSA_NO_PADDING}, Buffer.from(base64, 'base64'))
      if (block[0] !== 0 || block[1] !== 2) return undefined
      const separator = block.indexOf(0, 2)
      return separator < 10 ? undefined : block.subarray(separator + 1).toString('utf8')
    } catch {
      return undefined
    }
  }
}

function positive(value: string | null, fallback: number, name: string): number {
  if (value === null || value === '') return fallback
  if (!/^\d+$/.test(value) || Number(value) < 1) fail(10506, `${name}: must be a whole number from 1`)
  return Number(value)
}

function time(value: string | null, name: string): number | undefined {
  if (!value) return undefined
  const date = parseGmt8(value)
  return date ? date.getTime() : fail(10506, `${name}: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)`)
}
