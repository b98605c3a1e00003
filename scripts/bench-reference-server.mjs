#!/usr/bin/env node
// The bench's reference server: the least a platform must do to answer a pay create, and nothing
// else. It parses the JSON body, verifies the merchant's signature, and signs an answer of the
// sandbox's shape on libuv's thread pool, as the sandbox does, with no checks, no store and no
// journal. Its rate, measured in the same run, is this machine's ceiling for the sandbox's.
//
// Usage: node scripts/bench-reference-server.mjs MERCHANT_PUBLIC_KEY PLATFORM_PRIVATE_KEY
// Prints the port it listens on (127.0.0.1) as one line, then serves until killed or until its
// stdin ends.

import {createPrivateKey, createPublicKey, randomUUID} from 'node:crypto'
import {readFileSync} from 'node:fs'
import http from 'node:http'

const {canonicalString} = await import(new URL('../dist/protocol/canonical.js', import.meta.url))
const {signStringAsync, verifyString} = await import(new URL('../dist/protocol/signature.js', import.meta.url))

const merchantPublicKey = createPublicKey(readFileSync(process.argv[2]))
const platformPrivateKey = createPrivateKey(readFileSync(process.argv[3]))

let seq = 0
const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', async () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const {sign, ...fields} = body
    const answer = verifyString(canonicalString(fields), sign, merchantPublicKey)
      ? {code: 0, msg: 'success', data: payAnswer(body)}
      : {code: 1001, msg: 'signature mismatch'}
    Object.assign(answer, {resTime: '2026-11-24 08:06:49', reqId: body.reqId, traceId: randomUUID()})
    answer.sign = await signStringAsync(canonicalString(answer), platformPrivateKey)
    const text = JSON.stringify(answer)
    res.writeHead(200, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
    res.end(text)
  })
})

function payAnswer(body) {
  const n = String(++seq).padStart(6, '0')
  return {
    orderId: 1_000_000_000_000_000 + seq,
    bizOrderNo: body.bizOrderNo,
    orderNo: `DP20261124080649${n}`,
    tradeNo: `T20261124080649${n}`,
    status: 'progress',
    payBody: `http://127.0.0.1:${server.address().port}/aggregate/DP20261124080649${n}`,
    payBodyType: 'qr_code',
  }
}

server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
// the bench holds stdin open: when it ends, however it ends, so does this server
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
