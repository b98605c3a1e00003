// A number built to cost in the answers that are not signed (management API, unsigned auth
// calls): refused as malformed (exit 3) at once, as the signed answers are, not read for hours.
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {managementCall} from '../../src/client/management.js'
import {unsignedCall} from '../../src/client/unsigned.js'
import {SignatureError} from '../../src/errors.js'
import {unsignedEndpoints} from '../../src/protocol/endpoints.js'

const HOSTILE = '{"code":0,"message":"ok","data":{"total":1e-10000000}}'
let url: string
const server = createServer((req, res) => {
  req.resume()
  res.writeHead(200, {'content-type': 'application/json'}).end(HOSTILE)
})
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.close()
})

const refused = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(SignatureError)
  expect((error as SignatureError).exitCode).toBe(3)
  expect((error as SignatureError).message).toContain('the number 1e-10000000 written out would be over 100 characters')
}

describe('answers that are not signed', () => {
  it('the management API', async () => {
    await refused(managementCall({baseUrl: url, token: 't'}, {method: 'GET', path: '/mch/refund/list', auth: true}))
  })

  it('the unsigned auth calls', async () => {
    await refused(unsignedCall({baseUrl: url, mchNo: 'M1', verify: true}, unsignedEndpoints.auth, {authCode: 'c1', channel: 'walletA'}))
  })
})
