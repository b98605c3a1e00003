import {createServer} from 'node:http'
import {createServer as createNetServer, type AddressInfo, type Server as NetServer} from 'node:net'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {endpointUrl, httpRequest, MAX_ANSWER_BYTES, postJson} from '../../src/client/http.js'
import {TransportError, UsageError} from '../../src/errors.js'
import {bigAnswerServer, BIG_ANSWER_BYTES, type BigAnswerServer} from '../helpers/big-answer.js'

describe('endpointUrl', () => {
  it('puts the path under the base address, keeping a path prefix of the base', () => {
    expect(endpointUrl('http://127.0.0.1:8720', '/unipay/pay')).toBe('http://127.0.0.1:8720/unipay/pay')
    expect(endpointUrl('https://pay.example.com/', '/unipay/pay')).toBe('https://pay.example.com/unipay/pay')
    expect(endpointUrl('https://gw.example.com/payment', '/unipay/pay')).toBe('https://gw.example.com/payment/unipay/pay')
    expect(endpointUrl('https://gw.example.com/payment/', '/token/login')).toBe('https://gw.example.com/payment/token/login')
  })
})

async function serve(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
}

async function transportError(promise: Promise<unknown>): Promise<TransportError> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(TransportError)
  return error as TransportError
}

describe('answer size cap', () => {
  let big: BigAnswerServer | undefined
  afterEach(async () => {
    await big?.close()
    big = undefined
  })

  for (const declareLength of [false, true]) {
    it(`refuses a 50 MB answer ${declareLength ? 'that declares its length' : 'sent without a length'}, having read little more than the cap`, async () => {
      big = await bigAnswerServer({declareLength})
      const rssBefore = process.memoryUsage().rss
      const error = await transportError(postJson(`${big.url}/unipay/pay`, '{}', {}))
      const rssGrowth = process.memoryUsage().rss - rssBefore
      expect(error.message).toContain('the answer is larger than 10 MB; refused')
      expect(error.exitCode).toBe(4)
      // the request was sent: a create may have been carried out
      expect(error.outcomeUnknown).toBe(true)
      const sent = await big.sent()
      expect(sent).toBeLessThan(BIG_ANSWER_BYTES / 2)
      if (declareLength) expect(sent).toBeLessThan(MAX_ANSWER_BYTES)
      expect(rssGrowth).toBeLessThan(64 * 1024 * 1024)
    })
  }
})

describe('httpRequest', () => {
  it('decodes multi-byte characters split across chunks', async () => {
    const text = '支付'.repeat(1000)
    const {server, url} = await serve((_req, res) => {
      const bytes = Buffer.from(text)
      // split inside a character: decoding must join the chunks first
      res.write(bytes.subarray(0, 1))
      setTimeout(() => res.end(bytes.subarray(1)), 10)
    })
    try {
      expect((await postJson(url, '{}', {})).raw).toBe(text)
    } finally {
      server.close()
    }
  })

  it('never follows a redirect', async () => {
    let hits = 0
    const {server, url} = await serve((_req, res) => {
      hits++
      res.writeHead(302, {location: '/elsewhere'}).end()
    })
    try {
      const answer = await httpRequest(`${url}/unipay/pay`, {method: 'POST', body: '{}'})
      expect(answer.status).toBe(302)
      expect(answer.headers.location).toBe('/elsewhere')
      expect(hits).toBe(1)
    } finally {
      server.close()
    }
  })

  it('gives up at the timeout, not before, as a request that may have landed', async () => {
    let landed = false
    const {server, url} = await serve(() => {
      landed = true // and never answers
    })
    // the deadline runs on a clock the test moves; the socket stays real
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    try {
      let settled = false
      const answer = postJson(url, '{}', {timeoutMs: 300})
      answer.then(() => (settled = true), () => (settled = true))
      // (vi.waitFor would move the faked clock; setImmediate is left real)
      while (!landed) await new Promise((resolve) => setImmediate(resolve))
      await vi.advanceTimersByTimeAsync(299)
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      const error = await transportError(answer)
      expect(error.message).toBe(`could not reach ${url}: no answer within 0.3s`)
      expect(error.outcomeUnknown).toBe(true)
    } finally {
      vi.useRealTimers()
      server.closeAllConnections()
      server.close()
    }
  })

  it('says a refused connection was never sent', async () => {
    const {server, url} = await serve(() => {})
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const error = await transportError(postJson(url, '{}', {}))
    expect(error.message).toContain('ECONNREFUSED')
    expect(error.outcomeUnknown).toBe(false)
  })

  it('says a request was never sent when the name does not resolve, the TLS handshake fails, or no connection is made in time', async () => {
    // RFC 2606: .invalid never resolves
    const unresolved = await transportError(postJson('http://unipay-test.invalid/unipay/transfer', '{}', {}))
    expect(unresolved.message).toMatch(/could not reach http:\/\/unipay-test\.invalid: getaddrinfo (ENOTFOUND|EAI_AGAIN)/)
    expect(unresolved.outcomeUnknown).toBe(false)

    // a server that answers the TLS hello with bytes that are not TLS
    const garbage = createNetServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))
    const silent = createNetServer(() => {}) // takes the connection, never says a word
    const connected: Promise<void> = new Promise((resolve) => silent.once('connection', () => resolve()))
    for (const server of [garbage, silent]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    const url = (server: NetServer) => `https://127.0.0.1:${(server.address() as AddressInfo).port}/unipay/transfer`
    try {
      const handshake = await transportError(postJson(url(garbage), '{}', {}))
      expect(handshake.outcomeUnknown).toBe(false)

      vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
      const answer = postJson(url(silent), '{}', {timeoutMs: 300})
      answer.catch(() => {})
      // the TCP connection is made (an I/O event: the faked timers do not hold it); the handshake never ends
      await connected
      await vi.advanceTimersByTimeAsync(300)
      const timeout = await transportError(answer)
      expect(timeout.message).toBe(`could not reach ${new URL(url(silent)).origin}: no connection within 0.3s`)
      expect(timeout.outcomeUnknown).toBe(false)
    } finally {
      vi.useRealTimers()
      garbage.close()
      silent.close()
    }
  })

  it('says the outcome is unknown once the request went out, whatever happens after', async () => {
    const {server, url} = await serve((req) => req.socket.destroy())
    try {
      const error = await transportError(postJson(`${url}/unipay/transfer`, '{}', {}))
      expect(error.outcomeUnknown).toBe(true)
    } finally {
      server.close()
    }
  })

  it('sends the Host header and its own headers as Node does, credentials in the address included', async () => {
    const seen: {rawHeaders: string[]; authorization?: string}[] = []
    const {server, url} = await serve((req, res) => {
      seen.push({rawHeaders: req.rawHeaders, authorization: req.headers.authorization})
      req.resume()
      req.on('end', () => res.end('{}'))
    })
    try {
      await postJson(`${url}/unipay/pay`, '{"title":"支付"}', {})
      const port = new URL(url).port
      // headers given as a list: the Host Node would add, then ours, the length counted in bytes
      expect(seen[0].rawHeaders).toEqual(['host', `127.0.0.1:${port}`, 'user-agent', 'unipay-cli', 'content-type', 'application/json; charset=utf-8', 'content-length', '18', 'Connection', 'keep-alive'])
      await postJson(`http://ana:s3cret@127.0.0.1:${port}/unipay/pay`, '{}', {})
      expect(seen[1].authorization).toBe(`Basic ${Buffer.from('ana:s3cret').toString('base64')}`)
      expect(seen[1].rawHeaders).toContain(`127.0.0.1:${port}`)
    } finally {
      server.close()
    }
  })

  it('refuses an address that is not http(s) without sending anything', async () => {
    const error = await transportError(postJson('ftp://127.0.0.1/unipay/pay', '{}', {}))
    expect(error.message).toContain('unsupported protocol ftp:')
    expect(error.outcomeUnknown).toBe(false)
  })
})

describe('a header value Node refuses', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('fails at once with exit 2, naming the header but not its value, and leaves no timer armed', async () => {
    vi.useFakeTimers()
    let reached = false
    const {server, url} = await serve((_, res) => {
      reached = true
      res.end('{}')
    })
    try {
      // a token a hostile login answer handed over; Node throws ERR_INVALID_CHAR while building the request
      const error = await httpRequest(`${url}/mch/refund/list`, {method: 'GET', headers: {Accesstoken: 'sesame€'}, timeoutMs: 15_000}).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(UsageError)
      expect((error as UsageError).exitCode).toBe(2)
      expect((error as UsageError).message).toBe('the Accesstoken header cannot be sent: its value holds a character HTTP headers cannot carry (a control character, or one beyond Latin-1)')
      expect((error as UsageError).message).not.toContain('sesame')
      // the 15 s deadline was never armed: nothing can fire later and touch a request that never existed
      expect(vi.getTimerCount()).toBe(0)
      expect(reached).toBe(false)
    } finally {
      vi.useRealTimers()
      server.close()
    }
  })
})
