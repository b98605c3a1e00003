// payBody by payBodyType (PRODUCT.md): a QR for qr_code, the link, pretty JSON, a saved HTML
// form for `from`, the identifier as is.
import {mkdirSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'
import {printable} from '../protocol/printable.js'
import {Drawn} from './io.js'

interface RenderedPayBody {
  /** For stdout: on a terminal as the type says; piped, one `payBody<TAB>value` line. */
  text: string | Drawn
  /** For stderr: what the user should do with it. */
  note?: string
}

export async function renderPayBody(
  type: string,
  body: string,
  options: {tty: boolean; formFile: string},
): Promise<RenderedPayBody> {
  if (!options.tty) {
    // a script reads labelled lines: the value as sent, on one line; a form is also saved
    const line = `payBody\t${body.replace(/[\t\r\n]+/g, ' ')}`
    if (type !== 'from') return {text: line}
    saveForm(options.formFile, body)
    return {text: `${line}\nformFile\t${options.formFile}`, note: `saved the auto-submitting payment form: ${options.formFile}`}
  }
  switch (type) {
    case 'qr_code': {
      const {default: QRCode} = await import('qrcode')
      const qr = await QRCode.toString(body, {type: 'terminal', small: true, errorCorrectionLevel: 'M'})
      // the QR's colours are ours; the body beside it is the platform's, made printable
      return {text: new Drawn(`${qr}\n${printable(body)}`), note: 'scan the QR code with the wallet app'}
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
      saveForm(options.formFile, body)
      return {text: options.formFile, note: `saved the auto-submitting payment form; open it in a browser: ${options.formFile}`}
    default:
      return {text: body}
  }
}

function saveForm(file: string, body: string): void {
  mkdirSync(dirname(file), {recursive: true})
  writeFileSync(file, `<!doctype html>\n<meta charset="utf-8">\n${body}\n`)
}
