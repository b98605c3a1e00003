// What the `epay v1 ...` and `epay v2 ...` commands share: flags, the module's settings from the
// profile (pid, MD5 key and its form, the type/method order), and how a result is printed.
// The MD5 key comes from the profile or a file, never from the command line (shell history,
// process lists), and is never printed.
import {join} from 'node:path'
import type {EpayConfig, EpayResult} from '../client/epay.js'
import {shownParams} from '../client/epay.js'
import {openUrl} from './open.js'
import {renderPayBody} from '../output/paybody.js'
import {recordRows} from '../output/record.js'
import {renderRecord} from '../output/table.js'
import {parseEasyPayInput} from '../protocol/callback.js'
import {parseJsonObject, stringifyJson, toPlain, type JsonObject} from '../protocol/json.js'
import {EPAY_DEVICES, EPAY_MODES, EPAY_WALLET_VALUES, scalarFields} from '../protocol/epay-api.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {UsageError} from '../errors.js'
import {apiFlags, BaseCommand, callFlags, type DryRun, type Flag, Flags, profileFlags} from './base.js'
import {readMd5KeyFile, readText} from './input.js'

const md5KeyFileFlag = Flags.string({
  description: 'file holding the MD5 key (default: the profile\'s md5Key); there is no flag for the key itself, so it stays out of shell history',
  helpGroup: 'PROFILE',
})

/** The order flags of create and submit (V1 and V2 alike; `type` and `method` differ per version). */
export const orderFlags = {
  'out-trade-no': Flags.string({description: 'merchant order number, the idempotency key (generated when omitted)'}),
  name: Flags.string({description: 'order title (at most 100 characters)', required: true}),
  money: Flags.string({description: 'amount in yuan, at most 2 decimals, e.g. 12.50 (converted exactly)', required: true}),
  'notify-url': Flags.string({description: 'where the easy_pay notification goes (GET) when the order is paid'}),
  'return-url': Flags.string({description: 'where the payer returns after paying'}),
  param: Flags.string({description: 'merchant data returned as is in the notification (at most 500 characters)'}),
  device: Flags.string({description: 'the payer\'s device: pc (QR); mobile, qq, wechat, alipay (in-app browsers) or jump (h5 in V1; V2 follows --type)', options: [...EPAY_DEVICES]}),
  clientip: Flags.string({description: 'the payer\'s IP address'}),
}

/** V1: MD5 with the key, unsigned answers (so no key or verification flags). */
export const v1Flags = {
  profile: profileFlags.profile,
  'base-url': profileFlags['base-url'],
  'md5-key-file': md5KeyFileFlag,
  'dry-run': callFlags['dry-run'],
  timeout: callFlags.timeout,
}

/** V2: RSA with the merchant key, answers verified with the platform key; no channel merchant number. */
export const v2Flags = {...callFlags}

/** create and submit of V2: type and method in the spec's sense (the profile may swap them on the wire). */
export const v2OrderFlags = {
  ...v2Flags,
  ...orderFlags,
  type: Flags.string({description: 'how the payer pays: web (a QR, whatever --device), jump (straight to the wallet, h5), jsapi, app', options: [...EPAY_MODES], default: 'web'}),
  method: Flags.string({description: 'the wallet: alipay (walletB), wxpay (walletA), aggregate or none (the aggregate QR, any wallet), walletA..walletD; required for jsapi and app', options: [...EPAY_WALLET_VALUES]}),
  'sub-openid': Flags.string({description: 'the payer\'s openid, for --type jsapi'}),
}

/** The order input of create and submit from their flags. */
export function orderInput(flags: Record<string, unknown>) {
  const text = (key: string) => (typeof flags[key] === 'string' ? (flags[key]) : undefined)
  return {
    type: text('type'),
    method: text('method'),
    outTradeNo: text('out-trade-no'),
    name: text('name') ?? '',
    money: text('money') ?? '',
    notifyUrl: text('notify-url'),
    returnUrl: text('return-url'),
    param: text('param'),
    device: text('device'),
    clientip: text('clientip'),
    subOpenid: text('sub-openid'),
  }
}

/** A request of the module as printed: form parameters, the V1 query's key redacted. */
interface EpayShownRequest {
  method: 'POST'
  url: string
  params: Record<string, string>
  /** Absent for the V1 query, which sends the key instead of a sign. */
  canonicalString?: string
}

/** A dry run's request, with the order or refund number it would create beside it (as --json prints). */
export type EpayDryRun = DryRun<EpayShownRequest> & {outTradeNo?: string; outRefundNo?: string}

/** What `epay v1 submit` and `epay v2 submit` return: where the payer is sent. */
export type EpaySubmitResult = {location: string; outTradeNo: string; httpStatus: number} | EpayDryRun

export abstract class EpayCommand extends BaseCommand {
  /** The module's settings in force: pid (else mchNo), MD5 key (file > profile), keys, the switches. */
  protected async epayContext(flags: Partial<Flag<typeof apiFlags>> & {'md5-key-file'?: string}): Promise<{profile: ResolvedProfile; config: EpayConfig; swapped: boolean}> {
    // a local sandbox that is not running starts on the first call, once the input is checked
    const context = await this.context(flags)
    const {profile, client} = context
    const file = flags['md5-key-file']
    const fileKey = file ? readMd5KeyFile(file) : undefined
    // what the sandbox fills in once started (address, merchant, keys), read again after connecting
    const started = () => ({
      baseUrl: context.client.baseUrl,
      pid: context.profile.settings.pid || context.profile.settings.mchNo,
      md5Key: fileKey ?? context.profile.settings.md5Key,
      privateKey: context.client.privateKey,
      platformKey: context.client.platformKey,
    })
    const config: EpayConfig = {
      ...started(),
      md5KeyForm: profile.settings.md5KeyAppendForm === 'key-param' ? 'param' : 'direct',
      verify: client.verify,
      timeoutMs: client.timeoutMs,
      debug: client.debug,
    }
    const connect = client.connect
    if (connect) {
      config.connect = async () => {
        delete config.connect
        await connect()
        Object.assign(config, started())
      }
    }
    return {profile, config, swapped: profile.settings.epayTypeMethodSwapped === 'true'}
  }

  /**
   * Prints a call: the request for a dry run (secrets redacted), else the answer's data (`T`,
   * see protocol/answers.ts). Returns what it printed: the data, or the dry run's request.
   */
  protected async emitEpay<T>(result: EpayResult, human: (data: unknown, body: JsonObject) => void | Promise<void>, extra: Record<string, unknown> = {}): Promise<T | EpayDryRun> {
    const {url, params, canonicalString} = result.request
    if (!result.response) {
      const request: EpayShownRequest = {method: 'POST', url, params: shownParams(params), ...(canonicalString === undefined ? {} : {canonicalString})}
      if (this.json) this.io.out(stringifyJson({ok: true, dryRun: true, request, ...extra}, 2))
      else {
        this.notice(`dry run: not sent. POST ${url} (form)`)
        if (canonicalString !== undefined) this.notice(`string to sign: ${canonicalString}`)
        this.io.out(stringifyJson(request.params, 2))
      }
      return {dryRun: true, request, ...extra}
    }
    const {body, verified, data} = result.response
    if (verified) this.notice('✓ answer signature verified with the platform public key (timestamp within 300 s)')
    else if (result.request.version === 'v1') this.notice('V1 answers are not signed: nothing to verify')
    if (verified) this.notice('showing only the fields the signature vouches for (the signature does not cover data); --json has the whole answer under response')
    if (typeof extra.outTradeNo === 'string') this.notice(`out_trade_no: ${extra.outTradeNo}`)
    return this.emitAnswer<T>(data, () => human(data ?? null, body), {response: body, ...extra})
  }

  /**
   * An order's or refund's data as rows, money in yuan as the module speaks it (its data holds
   * cents); for a create the payment link and payBody rendered by its type.
   */
  protected async renderOrder(data: unknown, body: JsonObject, created: boolean): Promise<void> {
    const plain = toPlain(data) as Record<string, unknown> | null
    const rows = recordRows(plain ?? {}, created ? ['payBody'] : [], {inYuan: true})
    if (created && typeof body.payurl === 'string') rows.push(['payurl', body.payurl])
    // what was refunded (yuan), a flat field with no counterpart in data; absent until a refund
    const {refundmoney} = scalarFields(body)
    if (refundmoney !== undefined) rows.push(['refundmoney', refundmoney])
    this.io.out(renderRecord(rows, this.io.stdoutTty))
    if (!created || !plain || typeof plain.payBody !== 'string' || plain.payBody === '') return
    const formFile = join(this.config.dataDir, `form-${String(plain.orderNo)}.html`)
    const rendered = await renderPayBody(String(plain.payBodyType), plain.payBody, {tty: this.io.stdoutTty, formFile})
    this.io.out(rendered.text)
    if (rendered.note) this.notice(rendered.note)
  }

  /** submit: the redirect target on stdout, opened in the browser with --open. */
  protected async emitRedirect(result: EpayResult & {outTradeNo: string}, open: boolean | undefined): Promise<EpaySubmitResult> {
    if (!result.response) return this.emitEpay<never>(result, () => undefined)
    const location = result.response.location ?? ''
    const redirect = await this.emit({location, outTradeNo: result.outTradeNo, httpStatus: result.response.httpStatus}, () => {
      this.notice(`HTTP ${result.response!.httpStatus}: the payer is sent to the payment page (out_trade_no ${result.outTradeNo})`)
      this.io.out(location)
    })
    if (open) {
      const problem = await openUrl(location)
      this.notice(problem ? `could not open the browser (${problem}); open ${location} yourself` : `opened ${location} in the browser`)
    }
    return redirect
  }
}

/**
 * Parameters of the module from --data: a JSON object (scalars as written) or a query string or
 * URL. `nested`: the JSON's nested values by name (an answer's `data`), which no epay signature
 * covers, so they are left out.
 */
export function readEpayParams(value: string, flag = '--data'): {params: Record<string, string>; nested: string[]} {
  const text = readText(value, flag).replace(/^\uFEFF/, '').trim()
  if (!text.startsWith('{')) return {params: parseEasyPayInput(text), nested: []}
  let body: JsonObject
  try {
    body = parseJsonObject(text)
  } catch (error) {
    throw new UsageError(`${flag}: not a JSON object: ${(error as Error).message}`)
  }
  const params = scalarFields(body)
  return {params, nested: Object.keys(body).filter((key) => !Object.hasOwn(params, key) && body[key] !== null)}
}
