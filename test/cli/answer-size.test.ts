import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {bigAnswerServer, BIG_ANSWER_BYTES, type BigAnswerServer} from '../helpers/big-answer.js'
import {cli, type Cli} from '../helpers/cli.js'

let c: Cli
let big: BigAnswerServer

beforeAll(async () => {
  c = cli({sandbox: 'in-process'})
  big = await bigAnswerServer({declareLength: false})
  const merchant = generateRsaKeyPair()
  const platform = generateRsaKeyPair()
  writeFileSync(join(c.dir, 'merchant.pem'), merchant.privateKeyPem, {mode: 0o600})
  writeFileSync(join(c.dir, 'platform.pem'), platform.publicKeyPem)
  const added = await c.run(['profile', 'add', 'huge', '--base-url', big.url, '--mch-no', 'M1', '--private-key-file', join(c.dir, 'merchant.pem'), '--platform-public-key-file', join(c.dir, 'platform.pem')])
  expect(added.code).toBe(0)
})

afterAll(async () => {
  await big.close()
  await c.cleanup()
})

it('refuses a 50 MB answer with exit 4, as an outcome to check, having read little of it', async () => {
  const result = await c.json(['pay', 'create', '--profile', 'huge', '--title', 'x', '--amount', '1', '--biz-order-no', 'BIG1'])
  expect(result.code).toBe(4)
  expect(result.body.error).toMatchObject({kind: 'transport', exitCode: 4, details: {outcomeUnknown: true, bizOrderNo: 'BIG1'}})
  expect(result.body.error.message).toContain('the answer is larger than 10 MB; refused')
  // the CLI hung up soon after the cap instead of buffering all 50 MB
  expect(await big.sent()).toBeLessThan(BIG_ANSWER_BYTES / 2)
})
