// V1 (`/epay/api/v1/`): MD5 with the merchant's MD5 key, create (mapi.php) and submit
// (submit.php), and api.php?act=order, which authenticates with the plain key. Answers are
// unsigned; success is code 1 and failure -1, as V1 clients test (protocol-notes section 7).
import {timingSafeEqual} from 'node:crypto'
import {EPAY_V2_PATHS, EPAY_V2_PREFIX} from '../../protocol/epay-api.js'
import {echoedStringToSign} from '../../protocol/envelope.js'
import {md5KeyTailExplanation} from '../../protocol/epay-diagnose.js'
import {epayStringToSign, md5Matches, type Md5KeyForm} from '../../protocol/epay.js'
import {fail} from '../errors.js'
import {orderFields} from './orders.js'
import {orderOf, type EpayContext, type Params, type Result, type StoredMerchant} from './shared.js'

/** The key appended as the merchant is set up (directly unless it chose `&key=`); the failure says why it does not match. */
export function checkV1(ctx: EpayContext, params: Params): StoredMerchant {
  const merchant = ctx.merchantOf(params)
  const signType = params.sign_type
  if (signType && signType.toUpperCase() !== 'MD5') {
    fail(10506, `sign_type: V1 accepts MD5 only, not "${signType}"; RSA requests go to V2 at ${EPAY_V2_PREFIX}`)
  }
  const secret = ctx.md5Keys(merchant.mchNo) ?? fail(20023, `merchant ${merchant.mchNo} has no MD5 key: V1 is not enabled for it; use V2 (RSA)`)
  if (!params.sign) fail(10506, 'sign: is required')
  const text = epayStringToSign(params)
  const form = secret.md5KeyForm ?? 'direct'
  if (md5Matches(text, params.sign, secret.md5Key, form)) return merchant
  const other: Md5KeyForm = form === 'direct' ? 'param' : 'direct'
  if (md5Matches(text, params.sign, secret.md5Key, other)) {
    fail(20052, form === 'direct'
      ? 'signature verification failed: the sign appends the MD5 key as `&key=KEY`, but this merchant appends it directly (no `&key=`)'
      : 'signature verification failed: the sign appends the MD5 key directly, but this merchant appends it as `&key=KEY`')
  }
  const tail = md5KeyTailExplanation(text, params.sign, secret.md5Key, form)
  const shown = form === 'direct' ? `${text}{MD5 key}` : `${text}&key={MD5 key}`
  return fail(20052, `signature verification failed (MD5)${tail ? `: ${tail}` : ''}; server ${echoedStringToSign(shown)}`)
}

/** api.php: act=order, authenticated by the plain `key` parameter (compared with the MD5 key). V1 has no refund. */
export function v1Query(ctx: EpayContext, params: Params): Result {
  const merchant = ctx.merchantOf(params)
  const act = params.act
  if (act === 'refund') fail(10404, `act=refund: V1 has no refund; refunds go through V2 (RSA): ${EPAY_V2_PATHS.refund}`)
  if (act !== 'order') fail(10506, `act: ${act ? `"${act}" is not supported` : 'is required'}; use act=order`)
  const secret = ctx.md5Keys(merchant.mchNo) ?? fail(20023, `merchant ${merchant.mchNo} has no MD5 key: V1 is not enabled for it`)
  if (!params.key) fail(10506, 'key: is required (the merchant MD5 key)')
  if (!sameKey(params.key, secret.md5Key)) {
    fail(20052, sameKey(params.key.trim(), secret.md5Key)
      ? 'key: does not match the merchant\'s MD5 key: it has whitespace around it (a key file read whole?); send the key\'s characters alone'
      : 'key: does not match the merchant\'s MD5 key')
  }
  return orderFields(ctx, orderOf(ctx, merchant.mchNo, params))
}

function sameKey(given: string, md5Key: string): boolean {
  const a = Buffer.from(given, 'utf8')
  const b = Buffer.from(md5Key, 'utf8')
  return a.length === b.length && timingSafeEqual(a, b)
}
