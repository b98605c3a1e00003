// payBody by payBodyType (PRODUCT.md): a QR for qr_code, the link, pretty JSON, a saved HTML
// form for `from`, the identifier as is.
import {mkdirSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'

export interface RenderedPayBody {
  /** For stdout. */
  text: string
  /** For stderr: what the user should do with it. */
  note?: string
}

export async function renderPayBody(
  type: string,
  body: string,
  options: {tty: boolean; formFile: string},
): Promise<RenderedPayBody> {
  switch (type) {
    case 'qr_code': {
      if (!options.tty) return {text: body}
      const {default: QRCode} = await import('qrcode')
      const qr = await QRCode.toString(body, {type: 'terminal', small: true, errorCorrectionLevel: 'M'})
      return {text: `${qr}\n${body}`, note: 'scan the QR code with the wallet app'}
    }
    case 'link':
      return {text: body, note: 'open the link to pay'}
    case 'jsapi':
    case 'json':
      try {
        return {text: JSON.stringify(JSON.parse(body), null, 2), note: 'pass these parameters to the front-end SDK'}
      } catch {
        return {text: body}
      }
    case 'from':
      mkdirSync(dirname(options.formFile), {recursive: true})
      writeFileSync(options.formFile, `<!doctype html>\n<meta charset="utf-8">\n${body}\n`)
      return {text: options.formFile, note: `saved the auto-submitting payment form; open it in a browser: ${options.formFile}`}
    default:
      return {text: body}
  }
}
