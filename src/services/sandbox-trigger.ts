// `sandbox trigger` for the compatibility module: an epay order is created the way a merchant's
// epay client does (its words, signed with the sandbox merchant's MD5 or RSA key), then the
// sandbox plays the payer, so its V1 or V2 notification goes to the given address.
import {readFileSync} from 'node:fs'
import type {EpayConfig} from '../client/epay.js'
import {PlatformError} from '../errors.js'
import {loadPrivateKey, loadPublicKey} from '../protocol/keys.js'
import type {SandboxRuntime} from '../protocol/local-sandbox.js'
import {controlCall} from '../local-sandbox/control.js'
import {generateBusinessNo} from './call.js'
import {epayCreate} from './epay.js'

export const EPAY_TRIGGER_EVENTS = ['epay.v1', 'epay.v2'] as const

export async function triggerEpayNotification(runtime: SandboxRuntime, event: (typeof EPAY_TRIGGER_EVENTS)[number], notifyUrl: string): Promise<Record<string, string>> {
  const version = event === 'epay.v1' ? 'v1' : 'v2'
  const config: EpayConfig = {
    baseUrl: runtime.url,
    pid: runtime.merchant.mchNo,
    md5Key: version === 'v1' && runtime.merchant.md5KeyFile ? readFileSync(runtime.merchant.md5KeyFile, 'utf8').trim() : undefined,
    privateKey: version === 'v2' ? loadPrivateKey(readFileSync(runtime.merchant.privateKeyFile, 'utf8')) : undefined,
    platformKey: loadPublicKey(runtime.platformPublicKeyPem),
    verify: true,
  }
  // the order's numbers follow the sandbox clock, as its trade_no does (`sandbox clock advance`)
  const {offsetMs} = await controlCall<{offsetMs: number}>(runtime, 'GET', 'clock')
  const order = {outTradeNo: generateBusinessNo('E', new Date(Date.now() + offsetMs)), name: 'trigger', money: '1.00', notifyUrl}
  // an epay client names wallets in the protocol's words (alipay is walletB), never neutrally
  const created = await epayCreate(config, version, version === 'v1' ? {...order, type: 'alipay'} : {...order, method: 'alipay'})
  const body = created.response?.body ?? {}
  const tradeNo = typeof body.trade_no === 'string' ? body.trade_no : undefined
  if (!tradeNo) throw new PlatformError(Number(body.code ?? 1), `the epay ${version} order was not created: ${String(body.msg ?? created.response?.raw ?? '')}`, undefined)
  await controlCall(runtime, 'POST', 'pay', {order: tradeNo})
  return {event, tradeNo, outTradeNo: created.outTradeNo}
}
