// An in-process sandbox on a random port, plus a client signing as its default merchant.
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {buildRequest, type ClientConfig} from '../../src/client/pipeline.js'
import type {Endpoint} from '../../src/protocol/endpoints.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {readEnvelope} from '../../src/protocol/envelope.js'
import {startSandbox, type RunningSandbox, type StartOptions} from '../../src/sandbox/server.js'
import {CONTROL_SECRET_HEADER, type SandboxRuntime} from '../../src/protocol/local-sandbox.js'
import {afterAll, beforeAll} from 'vitest'
import {seedSandboxKeys} from './sandbox-keys.js'

/** What a control call (/_sandbox/*) must carry: the per-start secret and a JSON body. */
export const controlHeaders = (runtime: Pick<SandboxRuntime, 'controlSecret'>): Record<string, string> => ({
  'content-type': 'application/json',
  [CONTROL_SECRET_HEADER]: runtime.controlSecret,
})

/** The runtime file of the sandbox a CLI test started (in the test's private data folder). */
export const runtimeIn = (dataHome: string): SandboxRuntime => JSON.parse(readFileSync(join(dataHome, 'unipay', 'sandbox', 'runtime.json'), 'utf8'))

export interface SandboxTransfer {
  transferNo: string
  bizTransferNo: string
  status: string
  submissions: number
  amount: number
}

/** Every transfer the sandbox of a CLI test holds (read over the control API, with its secret). */
export async function sandboxTransfers(on: {env: NodeJS.ProcessEnv}): Promise<SandboxTransfer[]> {
  const runtime = runtimeIn(on.env.XDG_DATA_HOME!)
  return (await fetch(`${runtime.url}/_sandbox/transfers`, {headers: controlHeaders(runtime)})).json() as Promise<SandboxTransfer[]>
}

export interface TestSandbox {
  sandbox: RunningSandbox
  dataDir: string
  client: ClientConfig
  /** The default merchant's private key (PEM), for an outside signer (helpers/sdk.ts). */
  merchantPem: string
  /** Signs and posts; returns the verified answer body as plain JSON. */
  send(endpoint: Endpoint, fields: Record<string, unknown>): Promise<Record<string, any>>
  /** Posts a prepared body as is. */
  post(path: string, body: unknown): Promise<{status: number; text: string; body: Record<string, any>}>
  /** Moves the sandbox clock forward; resolves once what fell due is done, callbacks included. */
  advance(ms: number): Promise<void>
  close(): Promise<void>
}

export interface TestSandboxOptions extends Partial<StartOptions> {
  /**
   * The sandbox clock stands still from the start (`POST /_sandbox/clock/pause`): nothing falls
   * due (a settlement, a retry, an expiry) but what the test moves it through with advance().
   */
  pausedClock?: boolean
}

export async function testSandbox({pausedClock, ...options}: TestSandboxOptions = {}, dataDir = mkdtempSync(join(tmpdir(), 'unipay-sbx-'))): Promise<TestSandbox> {
  seedSandboxKeys(dataDir)
  const sandbox = await startSandbox({dataDir, port: 0, ...options})
  const {runtime} = sandbox
  const merchantPem = readFileSync(runtime.merchant.privateKeyFile, 'utf8')
  const client: ClientConfig = {
    baseUrl: runtime.url,
    mchNo: runtime.merchant.mchNo,
    appId: runtime.merchant.appId,
    privateKey: loadPrivateKey(merchantPem),
    platformKey: loadPublicKey(runtime.platformPublicKeyPem),
    verify: true,
  }
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${runtime.url}${path}`, {
      method: 'POST',
      headers: controlHeaders(runtime),
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    let parsed: Record<string, any> = {}
    try {
      parsed = JSON.parse(text)
    } catch {
      // left empty for non-JSON answers
    }
    return {status: response.status, text, body: parsed}
  }
  const control = async (path: string, body: unknown) => {
    const answer = await post(path, body)
    if (answer.status !== 200) throw new Error(`${path}: HTTP ${answer.status} ${answer.text}`)
  }
  if (pausedClock) await control('/_sandbox/clock/pause', {})
  return {
    sandbox,
    dataDir,
    client,
    merchantPem,
    post,
    advance: (advanceMs) => control('/_sandbox/clock', {advanceMs}),
    async send(endpoint, fields) {
      const request = await buildRequest(client, endpoint, fields)
      const answer = await post(endpoint.path, request.body)
      const read = readEnvelope(answer.text, client.platformKey)
      if (read.verified !== true) throw new Error(`answer not verified: ${answer.text}`)
      return answer.body
    },
    async close() {
      await sandbox.close()
    },
  }
}

/**
 * The sandbox of a test file (or of a describe block): started before its tests, closed and its
 * folder removed after them. The handle reads through to the started sandbox, so use it inside
 * tests and hooks registered after this call.
 */
export function useTestSandbox(options: TestSandboxOptions = {}): TestSandbox {
  let started: TestSandbox | undefined
  beforeAll(async () => {
    started = await testSandbox(options)
  })
  afterAll(async () => {
    if (!started) return
    await started.close()
    removeDir(started.dataDir)
  })
  return new Proxy({} as TestSandbox, {
    get(_, key) {
      if (!started) throw new Error('the test sandbox is not started yet: use it inside a test or a later hook')
      return started[key as keyof TestSandbox]
    },
  })
}

export function removeDir(dir: string): void {
  rmSync(dir, {recursive: true, force: true})
}

export interface Receiver {
  url: string
  received: {body: string; headers: IncomingMessage['headers']}[]
  /** Answers, in order, for the next arrivals; then `SUCCESS`. */
  answers: {status: number; body: string}[]
  close(): Promise<void>
}

/** A port free right now on loopback (nothing listens on it until someone takes it). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const {port} = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A merchant's callback endpoint on a random port. */
export async function callbackReceiver(): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url' | 'close'> = {received: [], answers: []}
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      receiver.received.push({body: Buffer.concat(chunks).toString('utf8'), headers: req.headers})
      const answer = receiver.answers.shift() ?? {status: 200, body: 'SUCCESS'}
      res.writeHead(answer.status, {'content-type': 'text/plain'})
      res.end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const {port} = server.address() as AddressInfo
  return {
    ...receiver,
    url: `http://127.0.0.1:${port}/notify`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A callback receiver for the tests of a file (or of a describe block), closed after them; read as useTestSandbox's. */
export function useCallbackReceiver(): Receiver {
  let started: Receiver | undefined
  beforeAll(async () => {
    started = await callbackReceiver()
  })
  afterAll(async () => {
    await started?.close()
  })
  return new Proxy({} as Receiver, {
    get(_, key) {
      if (!started) throw new Error('the callback receiver is not started yet: use it inside a test or a later hook')
      return started[key as keyof Receiver]
    },
  })
}

/**
 * Polls `probe` until it gives a value: a wait on an event (an arrival, a state), never on time.
 * Its deadline measures nothing: it is there to name a wait that never ends, and is long enough
 * for a machine several times slower than usual (below the tests' own timeout, vitest.config.ts).
 */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
