// What a correctly signed answer must also be before it is believed: the answer to this request
// (our reqId), recent (resTime), about the order we asked for. And what the CLI sends: every
// field given in --data, signed. A small fake platform signs with the test platform key and
// checks the merchant's signature on everything it receives.
import {readFileSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {canonicalString} from '../../src/protocol/canonical.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {signString, verifyString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {cli, type Cli} from '../helpers/cli.js'

const vectors = JSON.parse(readFileSync(new URL('../fixtures/unipay-sign.json', import.meta.url), 'utf8'))
const platformKey = loadPrivateKey(vectors.keys.platform.privateKeyPkcs8Pem)
const merchantPublic = loadPublicKey(vectors.keys.merchant.publicKeySpkiPem)

type Mode = 'ok' | 'by-trade' | 'other-order' | 'old' | 'future' | 'no-req-id' | 'other-req-id' | 'silent'
let mode: Mode = 'ok'
let received: {body: Record<string, any>; signed: boolean}[] = []
let c: Cli
let server: Server

function answer(request: Record<string, any>): string {
  const data: Record<string, unknown> = {bizOrderNo: request.bizOrderNo, orderNo: request.orderNo ?? 'DP1', status: 'progress', amount: 100}
  if (mode === 'other-order') data.bizOrderNo = 'SOMEONE-ELSES-ORDER'
  // asked by a trade number, the platform answers the order, which names it as its tradeNo
  if (mode === 'by-trade') Object.assign(data, {orderNo: 'DP7', tradeNo: 'T7'})
  const at = new Date(Date.now() + (mode === 'old' ? -600_000 : mode === 'future' ? 600_000 : 0))
  const body: Record<string, unknown> = {code: 0, msg: 'success', data, resTime: formatGmt8(at), reqId: request.reqId}
  if (mode === 'no-req-id') delete body.reqId
  if (mode === 'other-req-id') body.reqId = 'R-an-older-request'
  return JSON.stringify({...body, sign: signString(canonicalString(body), platformKey)})
}

beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const {sign, ...rest} = body
      received.push({body, signed: verifyString(canonicalString(rest), sign, merchantPublic)})
      if (mode === 'silent') return // never answers: the client's timeout decides
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(answer(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const merchantFile = join(c.dir, 'merchant.pem')
  const platformFile = join(c.dir, 'platform.pem')
  writeFileSync(merchantFile, vectors.keys.merchant.privateKeyPkcs8Pem, {mode: 0o600})
  writeFileSync(platformFile, vectors.keys.platform.publicKeySpkiPem)
  const added = await c.run(['profile', 'add', 'fake', '--base-url', url, '--mch-no', 'M1', '--private-key-file', merchantFile, '--platform-public-key-file', platformFile])
  expect(added.code).toBe(0)
})

afterAll(async () => {
  server.closeAllConnections()
  server.close()
  await c.cleanup()
})

beforeEach(() => {
  mode = 'ok'
  received = []
})

const create = (...args: string[]) => c.run(['pay', 'create', '--profile', 'fake', '--biz-order-no', `B${Date.now()}`, ...args])

describe('--data fields are signed and sent', () => {
  it('keeps notifyUrl and attach from --data when the flags are not given', async () => {
    const result = await create('--title', 'T', '--amount', '100', '--data', '{"notifyUrl":"https://shop.example.com/notify","attach":"cart-7"}')
    expect(result.code, result.stderr).toBe(0)
    expect(received).toHaveLength(1)
    expect(received[0].signed).toBe(true)
    expect(received[0].body).toMatchObject({title: 'T', amount: 100, notifyUrl: 'https://shop.example.com/notify', attach: 'cart-7'})
  })

  it('takes title and amount from --data alone; a flag given wins over --data', async () => {
    const result = await create('--attach', 'flag', '--data', '{"title":"From data","amount":250,"attach":"data"}')
    expect(result.code, result.stderr).toBe(0)
    expect(received[0].signed).toBe(true)
    expect(received[0].body).toMatchObject({title: 'From data', amount: 250, attach: 'flag'})
  })

  it('does the same for gateway prepay', async () => {
    const result = await c.run(['gateway', 'prepay', '--profile', 'fake', '--biz-order-no', `G${Date.now()}`, '--data', '{"title":"G","amount":3,"gatewayPayType":"cashier","notifyUrl":"https://shop.example.com/n","attach":"a"}'])
    expect(received).toHaveLength(1)
    expect(received[0].signed).toBe(true)
    expect(received[0].body).toMatchObject({title: 'G', amount: 3, gatewayPayType: 'cashier', notifyUrl: 'https://shop.example.com/n', attach: 'a'})
    expect(result.code, result.stderr).toBe(0)
  })

  it('refuses an unknown field before sending, naming it and the endpoint', async () => {
    const result = await create('--title', 'T', '--amount', '1', '--data', '{"notifyURL":"https://shop.example.com/n"}')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--data: "notifyURL" is not a field of POST /unipay/pay')
    expect(result.stderr).toContain('unipay api /unipay/pay')
    expect(received).toHaveLength(0)
  })
})

describe('a correctly signed answer is still checked', () => {
  it('believes the answer to our request', async () => {
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--biz-order-no', 'B1'])
    expect(result.code, result.stderr).toBe(0)
  })

  it.each([
    ['other-order', 'the answer is about bizOrderNo SOMEONE-ELSES-ORDER, not the B1 we asked for'],
    ['old', /resTime .* is (59\d|60\d) s old/],
    ['future', /resTime .* is (59\d|60\d) s in the future/],
    ['no-req-id', 'the answer echoes reqId (none), not ours'],
    ['other-req-id', 'the answer echoes reqId R-an-older-request, not ours'],
  ] as const)('refuses an answer with %s (exit 3)', async (which, message) => {
    mode = which
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--biz-order-no', 'B1'])
    expect(result.code).toBe(3)
    if (typeof message === 'string') expect(result.stderr).toContain(message)
    else expect(result.stderr).toMatch(message)
    expect(received).toHaveLength(1) // a verdict, not a transport failure: never retried
  })

  it('believes an answer naming the order asked for by its trade number, and refuses one about another trade', async () => {
    mode = 'by-trade'
    const trade = await c.run(['query', 'pay', '--profile', 'fake', '--trade-no', 'T7'])
    expect(trade.code, trade.stderr).toBe(0)
    expect(received[0].body.orderNo).toBe('T7')
    const other = await c.run(['query', 'pay', '--profile', 'fake', '--order-no', 'T8'])
    expect(other.code).toBe(3)
    expect(other.stderr).toContain('the answer is about orderNo DP7, tradeNo T7, not the T8 we asked for')
  })

  it('refuses a create\'s answer about another order and says the create may have happened', async () => {
    mode = 'other-order'
    const result = await c.json(['pay', 'create', '--profile', 'fake', '--biz-order-no', 'B2', '--title', 'T', '--amount', '1'])
    expect(result.code).toBe(3)
    expect(result.body.error.message).toContain('not the B2 we asked for')
    expect(result.body.error.details).toMatchObject({outcomeUnknown: true, bizOrderNo: 'B2'})
  })
})

describe('timeouts', () => {
  it('say how many tries and how long it all took', async () => {
    mode = 'silent'
    const result = await c.run(['query', 'pay', '--profile', 'fake', '--biz-order-no', 'B1', '--timeout', '1'])
    expect(result.code).toBe(4)
    // at least the three timeouts; how much more is the machine's business
    expect(result.stderr).toMatch(/no answer within 1 ?s, 3 tries, ([3-9]|\d{2,}) s/)
    expect(received).toHaveLength(3)
  })
})
