// `api --unchecked`: what the spec's rules would refuse, signed and sent as given, to see how a
// server answers it; a sandbox profile only, never a production one.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
let counter: Server
let hits = 0
let counterUrl = ''

beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  counter = createServer((_req, res) => {
    hits++
    res.end('{}')
  })
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', () => resolve()))
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`
  const keys = join(c.dir, 'keys')
  expect((await c.run(['keys', 'generate', '--out-dir', keys, '--name', 'm'])).code).toBe(0)
  for (const environment of ['production', 'sandbox']) {
    const added = await c.run(['profile', 'add', environment, '--environment', environment, '--base-url', counterUrl, '--mch-no', 'M1', '--private-key-file', join(keys, 'm-private.pem'), '--platform-public-key-file', join(keys, 'm-public.pem')])
    expect(added.code).toBe(0)
  }
})

afterAll(async () => {
  counter.close()
  await c.cleanup()
})

const pay = (bizOrderNo: string) => ['api', '/unipay/pay', '-f', `bizOrderNo=${bizOrderNo}`, '-f', 'title=T', '-F', 'amount=100']

describe('api --unchecked', () => {
  it('sends a value the spec forbids to the local sandbox, which answers it; without it nothing is sent', async () => {
    const checked = await c.run([...pay('U1'), '-f', 'currency=CNY'])
    expect(checked.code).toBe(2)
    expect(checked.stderr).toContain('currency: must be a 3-letter lower-case ISO 4217 code')
    const sent = await c.json([...pay('U1'), '-f', 'currency=CNY', '--unchecked'])
    expect(sent.code).toBe(1)
    expect(sent.body.error).toMatchObject({kind: 'platform', code: 10506})
    expect(sent.body.error.message).toContain('currency')
    // the answer is verified as always: a signed refusal
    expect(sent.body.response.sign).toEqual(expect.any(String))
    expect(sent.stderr).toContain('--unchecked: the fields are signed and sent as given, no rule of the spec applied')
  })

  it('sends common fields as given: a reqTime of 2020 is answered 10410 by the sandbox', async () => {
    const dry = await c.json([...pay('U2'), '-f', 'reqTime=2020-01-01 00:00:00', '-f', 'reqId=R-given', '-f', 'a.b=1', '--unchecked', '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.body.request.body).toMatchObject({reqTime: '2020-01-01 00:00:00', reqId: 'R-given', 'a.b': '1', mchNo: 'M1000000001'})
    expect(dry.body.request.canonicalString).toContain('&reqId=R-given&reqTime=2020-01-01 00:00:00&')
    const stale = await c.json([...pay('U2'), '-f', 'reqTime=2020-01-01 00:00:00', '--unchecked'])
    expect(stale.code).toBe(1)
    expect(stale.body.error.code).toBe(10410)
  })

  it('goes to a profile of environment sandbox, and never to a production one (exit 2, nothing sent)', async () => {
    hits = 0
    const production = await c.run([...pay('U3'), '-f', 'currency=CNY', '--unchecked', '--profile', 'production'])
    expect(production.code).toBe(2)
    expect(production.stderr).toContain('Error: --unchecked sends what the spec\'s rules would refuse: only to a sandbox profile, and production is a production profile')
    expect((await c.run([...pay('U3'), '--unchecked', '--profile', 'production', '--dry-run'])).code).toBe(2)
    expect(hits).toBe(0)
    // a sandbox-environment profile is sent to (the counting server answers no platform answer: exit 4)
    const sandbox = await c.run([...pay('U3'), '-f', 'currency=CNY', '--unchecked', '--profile', 'sandbox'])
    expect(sandbox.code).toBe(4)
    expect(hits).toBe(1)
  })

  it('is what the --data refusal of a wrapped command suggests, and sends what that command refused', async () => {
    const refused = await c.run(['pay', 'create', '--title', 'T', '--amount', '100', '--data', '{"reqId":"R-mine"}'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('to send a body as you wrote it, use: unipay api /unipay/pay --data ... (add --unchecked, on a sandbox profile, to send even what the spec\'s rules refuse)')
    const sent = await c.json(['api', '/unipay/pay', '--unchecked', '--data', '{"reqId":"R-mine","bizOrderNo":"U4","title":"T","amount":100}'])
    expect(sent.code).toBe(0)
    expect(sent.body.response.reqId).toBe('R-mine')
  })
})
