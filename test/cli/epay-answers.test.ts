// What a V1 answer must be before the CLI believes it (V1 answers are not signed): its code
// written exactly 1 (or "1"), about the out_trade_no and the money asked. A small fake platform
// answers each request with the raw text a test writes, as a broken or hostile server would.
import {writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'

/** The answer's raw text for the request's form parameters; set by each test. */
let respond: (params: Record<string, string>) => string
let c: Cli
let server: Server
let md5File: string

beforeAll(async () => {
  c = cli()
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (d: Buffer) => chunks.push(d))
    req.on('end', () => {
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(respond(params))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  md5File = join(c.dir, 'md5.key')
  writeFileSync(md5File, 'k'.repeat(32), {mode: 0o600})
  const added = await c.run(['profile', 'add', 'fake', '--base-url', url, '--mch-no', 'M1', '--pid', '1001'])
  expect(added.code, added.stderr).toBe(0)
})

afterAll(async () => {
  server.closeAllConnections()
  server.close()
  await c.cleanup()
})

const create = () => c.run(['epay', 'v1', 'create', '--profile', 'fake', '--md5-key-file', md5File, '--name', 'VIP', '--money', '12.50', '--out-trade-no', 'E100'])
const query = () => c.run(['epay', 'v1', 'query', '--profile', 'fake', '--md5-key-file', md5File, '--out-trade-no', 'E100'])
/** A V1 create answer as the platform writes it, with `code` written as given. */
const created = (params: Record<string, string>, code: string, extra = '') =>
  `{"code":${code},"msg":"success","trade_no":"T1","out_trade_no":"${params.out_trade_no}","money":"${params.money}","payurl":"http://pay.example/T1"${extra}}`

describe('epay v1: the code', () => {
  it('takes code 1 and "1" as success', async () => {
    for (const code of ['1', '"1"']) {
      respond = (params) => created(params, code)
      const result = await create()
      expect(result.code, `${code}: ${result.stderr}`).toBe(0)
    }
  })

  it('refuses (exit 3) a code that only reads as 1: 1.0000000000000001, "01", 1.0, 1e0', async () => {
    for (const code of ['1.0000000000000001', '"01"', '1.0', '1e0']) {
      respond = (params) => created(params, code)
      const result = await create()
      expect(result.code, `${code}: ${result.stderr}`).toBe(3)
      expect(result.stderr).toContain(`the answer's code is written ${code}: V1 success is written 1 (or "1")`)
    }
  })

  it('still reads -1 as the platform refusing (exit 1)', async () => {
    respond = () => '{"code":-1,"msg":"money: too much"}'
    const result = await create()
    expect(result.code, result.stderr).toBe(1)
    expect(result.stderr).toContain('money: too much')
  })
})

describe('epay v1: an answer about another order or amount', () => {
  it('refuses a create answered for another out_trade_no (exit 3)', async () => {
    respond = (params) => created({...params, out_trade_no: 'SOMEONE-ELSES'}, '1')
    const result = await create()
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('the answer is about out_trade_no SOMEONE-ELSES, not the E100 we asked for')
  })

  it('refuses a create answered for another money, compared in cents (exit 3), and takes the same amount written otherwise', async () => {
    respond = (params) => created({...params, money: '1250.00'}, '1')
    const other = await create()
    expect(other.code, other.stderr).toBe(3)
    expect(other.stderr).toContain('the answer is about money 1250.00, not the 12.50 yuan we asked for')
    // a cent's fraction is another amount, not a rounding
    respond = (params) => created({...params, money: '12.501'}, '1')
    expect((await create()).code).toBe(3)
    // 12.5 and 12.500 are 1250 cents, as asked
    for (const money of ['12.5', '12.500']) {
      respond = (params) => created({...params, money}, '1')
      const same = await create()
      expect(same.code, `${money}: ${same.stderr}`).toBe(0)
    }
  })

  it('refuses a query answered about another out_trade_no (exit 3)', async () => {
    respond = () => '{"code":1,"msg":"success","trade_no":"T9","out_trade_no":"E999","money":"1.00","status":1}'
    const result = await query()
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('the answer is about out_trade_no E999, not the E100 we asked for')
  })
})
