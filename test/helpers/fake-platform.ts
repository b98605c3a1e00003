// A platform that answers as a test says, every answer signed with the test vectors' platform key
// by an independent signer (jsrsasign over its own flattening, test/helpers/sdk.ts), and a
// profile of a CLI pointing at it.
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {formatGmt8} from '../../src/protocol/time.js'
import type {Cli} from './cli.js'
import {oracleSign, sdkString} from './sdk.js'

const vectors = JSON.parse(readFileSync(new URL('../fixtures/unipay-sign.json', import.meta.url), 'utf8'))

/** A signed answer over exactly these fields. */
export const signed = (fields: Record<string, unknown>) => JSON.stringify({...fields, sign: oracleSign(sdkString(fields), vectors.keys.platform.privateKeyPkcs8Pem as string)})

/** The envelope of an answer to `request`: success unless `rest` says otherwise. */
export const envelope = (request: Record<string, any>, rest: Record<string, unknown>) => ({code: 0, msg: 'success', resTime: formatGmt8(new Date()), reqId: request.reqId, ...rest})

export interface FakePlatform {
  url: string
  /** Requests answered so far. */
  hits: number
  /** The answer to a request (its body) at a path; set by each test. */
  respond: (request: Record<string, any>, path: string) => string
  close(): Promise<void>
}

export async function fakePlatform(): Promise<FakePlatform> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => {
      fake.hits++
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(fake.respond(JSON.parse(Buffer.concat(chunks).toString('utf8')), req.url ?? ''))
    })
  })
  const fake: FakePlatform = {
    url: '',
    hits: 0,
    respond: () => '{}',
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}

/** Adds profile `name` to the CLI: merchant M1 at `url`, with the test vectors' keys. */
export async function fakeProfile(on: Cli, name: string, url: string): Promise<void> {
  const merchantFile = join(on.dir, `${name}-merchant.pem`)
  const platformFile = join(on.dir, `${name}-platform.pem`)
  writeFileSync(merchantFile, vectors.keys.merchant.privateKeyPkcs8Pem as string, {mode: 0o600})
  writeFileSync(platformFile, vectors.keys.platform.publicKeySpkiPem as string)
  const added = await on.run(['profile', 'add', name, '--base-url', url, '--mch-no', 'M1', '--private-key-file', merchantFile, '--platform-public-key-file', platformFile, '--channel-mch-no', 'CM1'])
  if (added.code !== 0) throw new Error(`profile add ${name}: ${added.stderr}`)
}
