// The integrator's own backend against the sandbox: credentials, a port that stays, the
// foreground mode, every sandbox command reaching the sandbox the user started (the backend guide's recipe
// run as written), and the request log that explains a refused signature.
import {spawn, type ChildProcess} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {getEventListeners} from 'node:events'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {sandboxRuntimeFile} from '../../src/protocol/local-sandbox.js'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {followRequests} from '../../src/services/sandbox.js'
import {checkEasyPayCallback, parseEasyPayInput} from '../../src/protocol/callback.js'
import {canonicalString} from '../../src/protocol/canonical.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {signString} from '../../src/protocol/signature.js'
import {formatGmt8} from '../../src/protocol/time.js'
import {cli, type Cli} from '../helpers/cli.js'
import {startListen} from '../helpers/listen.js'
import {onTerminal} from '../helpers/pty.js'
import {freePort, waitFor} from '../helpers/sandbox.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'bin/run.js')

let c: Cli
beforeAll(() => {
  c = cli()
})
afterAll(async () => {
  await c.cleanup()
})

describe('sandbox credentials and status, piped', () => {
  it('print only label<TAB>value lines: the platform key as its bare Base64 line, no PEM block', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    for (const args of [['sandbox', 'credentials'], ['sandbox', 'status']]) {
      const {stdout, code} = await c.run(args)
      expect(code).toBe(0)
      const lines = stdout.trimEnd().split('\n')
      for (const line of lines) expect(line, args.join(' ')).toMatch(/^[A-Za-z][A-Za-z0-9]*\t/)
      expect(lines, args.join(' ')).toContain(`platformPublicKey\t${creds.platformPublicKey}`)
    }
  })
})

describe('sandbox credentials', () => {
  it('names what a third-party client needs, files by path, never a secret', async () => {
    const {code, body} = await c.json(['sandbox', 'credentials'])
    expect(code).toBe(0)
    const creds = body.data
    expect(creds).toMatchObject({mchNo: 'M1000000001', appId: 'A1000000001'})
    expect(creds.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(creds.epayV1BaseUrl).toBe(`${creds.baseUrl}/epay/api/v1/`)
    expect(creds.epayV2BaseUrl).toBe(`${creds.baseUrl}/epay/api/v2/`)
    expect(creds.platformPublicKeyPem).toContain('BEGIN PUBLIC KEY')
    expect(creds.platformPublicKeyPem.replace(/-----[^-]+-----|\s/g, '')).toBe(creds.platformPublicKey)
    expect(existsSync(creds.merchantPrivateKeyFile)).toBe(true)
    expect(existsSync(creds.epayV1Md5KeyFile)).toBe(true)
    const md5Key = readFileSync(creds.epayV1Md5KeyFile, 'utf8').trim()
    for (const format of ['table', 'env', 'properties']) {
      const {stdout, code: exit} = await c.run(['sandbox', 'credentials', '--format', format])
      expect(exit).toBe(0)
      expect(stdout).not.toContain('PRIVATE KEY')
      expect(stdout).not.toContain(md5Key)
    }
    const env = (await c.run(['sandbox', 'credentials', '--format', 'env'])).stdout
    expect(env).toContain(`UNIPAY_SANDBOX_BASE_URL=${creds.baseUrl}\n`)
    expect(env).toContain(`UNIPAY_SANDBOX_PLATFORM_PUBLIC_KEY=${creds.platformPublicKey}\n`)
    expect((await c.run(['sandbox', 'credentials', '--format', 'properties'])).stdout).toContain('unipay.sandbox.mchNo=M1000000001')
  })

  it('--format env, sourced, points unipay itself at this sandbox, and never over a profile named with --profile', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    const file = join(c.dir, '.env.sandbox')
    writeFileSync(file, (await c.run(['sandbox', 'credentials', '--format', 'env'])).stdout)
    const env = readFileSync(file, 'utf8')
    expect(env).toContain(`UNIPAY_PROFILE=local\nUNIPAY_SANDBOX_DIR=${creds.dataDir}\n`)
    // nothing unipay reads that would win over a profile: its address, merchant or keys
    expect(env).not.toMatch(/^UNIPAY_(BASE_URL|MCH_NO|APP_ID|PRIVATE_KEY_FILE|PLATFORM_PUBLIC_KEY_FILE)=/m)
    // a user of this machine whose active profile is production (a CLI home of its own)
    const user = cli()
    try {
      const keys = join(user.dir, 'prod-keys')
      expect((await user.run(['keys', 'generate', '--out-dir', keys, '--name', 'prod'])).code).toBe(0)
      expect((await user.run(['profile', 'add', 'prod', '--environment', 'production', '--base-url', 'https://pay.example.com', '--mch-no', 'M77', '--private-key-file', join(keys, 'prod-private.pem'), '--use'])).code).toBe(0)
      const sourced = async (args: string) => {
        const {code, output} = await foreground(`set -a; . ${file}; set +a; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args}`, {cwd: user.dir, env: user.env})
        expect(code, output).toBe(0)
        return JSON.parse(output.slice(output.indexOf('{')))
      }
      // the active profile is production: sourced, the file points unipay at the sandbox
      const local = await sourced('pay create --title T --amount 1 --dry-run --json')
      expect(local.request.url).toBe(`${creds.baseUrl}/unipay/pay`)
      expect(local.request.body.mchNo).toBe(creds.mchNo)
      // and --profile still means that profile, its address, merchant and key
      const prod = await sourced('pay create --title T --amount 1 --dry-run --json --profile prod')
      expect(prod.request.url).toBe('https://pay.example.com/unipay/pay')
      expect(prod.request.body.mchNo).toBe('M77')
    } finally {
      await user.cleanup()
    }
    // two node starts in a shell, slow on a loaded machine
  })
})

describe('a sandbox that stays where it is', () => {
  it('keeps its port across a restart', async () => {
    const first = (await c.json(['sandbox', 'start'])).body.data.url
    expect((await c.run(['sandbox', 'stop'])).code).toBe(0)
    const again = await c.json(['sandbox', 'start'])
    expect(again.body.data).toMatchObject({url: first, started: true})
  })
})

describe('sandbox logs', () => {
  it('shows a third-party request refused for its signature, with the string to sign and the cause', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    // a client that writes a null as `key=` in its string to sign
    const bizOrderNo = `L${randomBytes(6).toString('hex')}`
    const body: Record<string, unknown> = {
      mchNo: creds.mchNo, appId: creds.appId, reqId: randomBytes(8).toString('hex'), nonceStr: randomBytes(8).toString('hex'),
      reqTime: formatGmt8(new Date()), bizOrderNo, title: 'Logged', amount: 100, attach: null,
    }
    const clientString = `${canonicalString(body)}&attach=`.split('&').sort().join('&')
    body.sign = signString(clientString, loadPrivateKey(readFileSync(creds.merchantPrivateKeyFile, 'utf8')))
    const answer: any = await (await fetch(`${creds.baseUrl}/unipay/pay`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})).json()
    expect(answer.code).toBe(20052)

    const {code, body: logs} = await c.json(['sandbox', 'logs', '--failed'])
    expect(code).toBe(0)
    const entry = logs.data.find((e: any) => e.path === '/unipay/pay' && e.code === '20052')
    expect(entry).toMatchObject({method: 'POST', merchant: creds.mchNo, status: 200})
    expect(entry.signature.stringToSign).toContain(`bizOrderNo=${bizOrderNo}`)
    expect(entry.signature.stringToSign).not.toContain('attach')
    expect(entry.signature.causes[0]).toMatch(/null .*`key=`/)
    const human = (await c.run(['sandbox', 'logs', '--failed'])).stdout
    expect(human).toContain('POST /unipay/pay  M1000000001  200  20052')
    expect(human).toMatch(/likeliest cause: null/)
  })

  it('lists the CLI\'s own calls too (control calls carry the secret and still work)', async () => {
    expect((await c.json(['sandbox', 'balance', '--set-yuan', '12'])).body.data.balance).toBe(1200)
    const {body} = await c.json(['sandbox', 'logs'])
    expect(body.data.some((e: any) => e.path === '/_sandbox/balance' && e.status === 200)).toBe(true)
  })
})

describe('sandbox start and sandbox balance', () => {
  it('piped: labelled lines of raw values (label<TAB>value); on a terminal: aligned, the balance in yuan beside its cents', async () => {
    const start = await c.run(['sandbox', 'start'])
    expect(start.code).toBe(0)
    const {url, pid} = (await c.json(['sandbox', 'status'])).body.data
    expect(start.stdout).toBe(`url\t${url}\npid\t${pid}\n`)
    const balance = await c.run(['sandbox', 'balance', '--set-yuan', '12.5'])
    expect(balance.stdout).toBe('mchNo\tM1000000001\nbalance\t1250\n')
    expect((await onTerminal(['sandbox', 'start'], c.env, 80)).output).toMatch(new RegExp(`^url +${url}\npid +${pid}\n`, 'm'))
    expect((await onTerminal(['sandbox', 'balance'], c.env, 80)).output).toMatch(/^mchNo +M1000000001\nbalance +1250 \(¥12\.50\)\n/m)
  })
})

describe('sandbox start --foreground', () => {
  it('logs requests to stdout, prints the secret once beyond loopback, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'unipay-fg-'))
    const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
    const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--foreground', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir], {env: c.env, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      const port = (await waitFor(() => /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(out) ?? undefined))[1]
      const secret = (await waitFor(() => /control secret \(header x-unipay-sandbox-secret\): (\S+)/.exec(out) ?? undefined))[1]
      const runtime = JSON.parse(readFileSync(join(dataDir, 'sandbox', 'runtime.json'), 'utf8'))
      expect(secret).toBe(runtime.controlSecret)
      expect((await fetch(`http://127.0.0.1:${port}/_sandbox/notifications`)).status).toBe(403)
      await fetch(`http://127.0.0.1:${port}/unipay/ping`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"mchNo":"M1000000001"}'})
      await waitFor(() => out.includes('POST /unipay/ping  M1000000001  200  10506'))
      expect(out.match(/control secret/g)).toHaveLength(1)
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(out).toContain('sandbox stopped')
      expect(existsSync(join(dataDir, 'sandbox', 'runtime.json'))).toBe(false)
    } finally {
      child.kill('SIGKILL')
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})

describe('sandbox start --foreground while it starts', () => {
  it('holds the start lock a background start takes: a command run meanwhile uses this sandbox, it starts no second one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'unipay-fg-'))
    const gate = mkdtempSync(join(tmpdir(), 'unipay-gate-'))
    // every sandbox daemon started with this environment says it is there, then waits at its start until the gate opens
    const hold = join(gate, 'hold.mjs')
    writeFileSync(hold, [
      "import {existsSync, writeFileSync} from 'node:fs'",
      "if (process.argv[1]?.endsWith('/sandbox/main.js')) {",
      `  writeFileSync(${JSON.stringify(join(gate, 'held-'))} + process.pid, '')`,
      `  while (!existsSync(${JSON.stringify(join(gate, 'open'))})) await new Promise((resolve) => setTimeout(resolve, 20))`,
      '}',
    ].join('\n'))
    const env = {...c.env, NODE_OPTIONS: `--import=${pathToFileURL(hold).href}`}
    const held = () => readdirSync(gate).filter((name) => name.startsWith('held-')).map((name) => Number(name.slice(5)))
    const run = (args: string[]) => {
      const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
      const output = {stdout: '', stderr: ''}
      child.stdout.on('data', (d) => (output.stdout += d))
      child.stderr.on('data', (d) => (output.stderr += d))
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      return {child, output, exited}
    }
    const foreground = run(['sandbox', 'start', '--foreground', '--port', '0', '--data-dir', dataDir])
    try {
      await waitFor(() => held().length === 1)
      // its daemon is starting: no runtime file yet
      const second = run(['sandbox', 'start', '--data-dir', dataDir, '--json'])
      await waitFor(() => /waiting for the local sandbox|starting the local sandbox in the background/.test(second.output.stderr))
      writeFileSync(join(gate, 'open'), '')
      expect(await second.exited, second.output.stderr).toBe(0)
      const runtime = JSON.parse(readFileSync(join(dataDir, 'sandbox', 'runtime.json'), 'utf8'))
      expect(JSON.parse(second.output.stdout).data).toMatchObject({started: false, pid: runtime.pid})
      expect(held()).toEqual([runtime.pid])
      expect(second.output.stderr).toContain(`waiting for the local sandbox that another command is starting for ${dataDir}`)
      foreground.child.kill('SIGTERM')
      expect(await foreground.exited).toBe(0)
    } finally {
      writeFileSync(join(gate, 'open'), '')
      foreground.child.kill('SIGKILL')
      for (const pid of held()) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // already stopped
        }
      }
      rmSync(dataDir, {recursive: true, force: true})
      rmSync(gate, {recursive: true, force: true})
    }
  })
})

describe('sandbox trigger and listen --events', () => {
  it('drives a refund to refund.fail; listen shows and acknowledges only the events asked for', async () => {
    const listen = await startListen(c, ['--port', '0', '--events', 'refund.*', '--json'])
    try {
      const {code, body} = await c.json(['sandbox', 'trigger', 'refund.fail', '--notify-url', listen.url])
      expect(code).toBe(0)
      expect(body.data.refundNo).toBeTruthy()
      const shown = await waitFor(() => listen.lines.map((l) => JSON.parse(l)).find((a) => a.event === 'refund.fail'))
      expect(shown.verified).toBe(true)
      // the order's pay.success went to the same address: acknowledged, not shown
      const callbacks = (await c.json(['sandbox', 'callbacks', 'list'])).body.data as any[]
      const paySuccess = callbacks.find((n) => n.event === 'pay.success' && n.url === listen.url)
      await waitFor(async () => ((await c.json(['sandbox', 'callbacks', 'list'])).body.data as any[]).find((n) => n.id === paySuccess.id && n.state === 'delivered'))
      expect(listen.lines.map((l) => JSON.parse(l)).every((a) => a.event !== 'pay.success')).toBe(true)
    } finally {
      await listen.stop('SIGINT')
    }
  })

  it('sends the epay V1 (MD5) and V2 (RSA) paid notifications, each verifying with its key', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    const keys = {md5Key: readFileSync(creds.epayV1Md5KeyFile, 'utf8').trim(), platformKey: loadPublicKey(creds.platformPublicKeyPem)}
    for (const [event, signType] of [['epay.v1', 'MD5'], ['epay.v2', 'RSA']]) {
      const notifyUrl = `http://127.0.0.1:9/${event}`
      const {code, body} = await c.json(['sandbox', 'trigger', event, '--notify-url', notifyUrl])
      expect(code).toBe(0)
      const callbacks = (await c.json(['sandbox', 'callbacks', 'list'])).body.data as any[]
      const sent = callbacks.find((n) => n.url.includes(`trade_no=${body.data.tradeNo}&`))
      const params = parseEasyPayInput(sent.url)
      expect(params).toMatchObject({trade_status: 'TRADE_SUCCESS', sign_type: signType, out_trade_no: body.data.outTradeNo})
      expect(checkEasyPayCallback(params, keys).verified).toBe(true)
    }
  })

  it('refuses an unknown event with the list of events (exit 2)', async () => {
    const {code, stderr} = await c.run(['sandbox', 'trigger', 'pay.maybe', '--notify-url', 'http://127.0.0.1:9/notify'])
    expect(code).toBe(2)
    expect(stderr).toContain('pay.success, pay.fail')
  })
})

/** A long-running command, its output gathered, ready once `ready` matches it. */
function background(command: string, options: {cwd: string; env: NodeJS.ProcessEnv}): {child: ChildProcess; output: () => string; exited: Promise<number | null>} {
  // variables set for the command go before exec, which then passes them on
  const child = spawn('bash', ['-c', command.replace(/^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)/, '$1exec ')], {...options, stdio: ['ignore', 'pipe', 'pipe']})
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  return {child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code)))}
}

function foreground(command: string, options: {cwd: string; env: NodeJS.ProcessEnv}): Promise<{code: number | null; output: string}> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {...options, stdio: ['ignore', 'pipe', 'pipe']})
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.once('exit', (code) => resolve({code, output}))
  })
}

describe('the backend guide: "Testing your own backend ... against the sandbox"', () => {
  it('names every setting `sandbox credentials` prints, and no file the credentials do not name', async () => {
    const printed = (await c.run(['sandbox', 'credentials'])).stdout
    const labels = [...printed.matchAll(/^(\w+)\t/gm)].map((match) => match[1])
    expect(labels).toEqual(expect.arrayContaining(['baseUrl', 'merchantPrivateKeyBase64File', 'epayPid', 'epayV1Md5KeyFile']))
    const readme = readFileSync(join(ROOT, 'docs/guides/backend.md'), 'utf8')
    const from = readme.indexOf('## Testing your own backend')
    const section = readme.slice(from, readme.indexOf('\n## ', from))
    const named = new Set([...section.matchAll(/`(\w+)`/g)].map((match) => match[1]))
    expect(labels.filter((label) => !named.has(label))).toEqual([])
    expect([...named].filter((name) => name.endsWith('File') && !labels.includes(name))).toEqual([])
  })
})

describe('the backend guide: "Use the sandbox from your own backend", run as written', () => {
  // Every `sh` line of the section runs in order, in bash, in an empty folder, with `unipay` on
  // PATH (bin/run.js) and this test's private HOME. The recipe's ports (8720 the sandbox, 8730
  // listen, 3000 your backend) are swapped for ports free at test time; nothing else changes.
  // A line that runs until stopped (the foreground sandbox, a line ending in `&`) runs in the
  // background, and the next line waits for it to say it listens, as a person does who reads it.
  // A reader who followed README from the top has the local sandbox running in the CLI's own
  // data folder, with keys other than the foreground one's: listen must still verify with those.
  it.each([
    ['on a fresh machine', false],
    ['beside the local sandbox that earlier sections started', true],
  ])('runs the sandbox in the foreground with --data-dir and a fixed port; every other command reaches it (%s)', async (_, localRunning) => {
    const own = cli()
    if (localRunning) expect((await own.run(['sandbox', 'start'])).code).toBe(0)
    const work = mkdtempSync(join(tmpdir(), 'unipay-recipe-'))
    const shims = join(work, '.bin')
    mkdirSync(shims)
    writeFileSync(join(shims, 'unipay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {mode: 0o755})
    const env = {...own.env, PATH: `${shims}:${process.env.PATH}`}
    const running: ReturnType<typeof background>[] = []
    const backend: {event: string}[] = []
    const app: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        backend.push(JSON.parse(body))
        res.end('SUCCESS')
      })
    })
    try {
      const ports: Record<string, string> = {'8720': String(await freePort()), '8730': String(await freePort()), '3000': String(await freePort())}
      await new Promise<void>((resolve) => app.listen(Number(ports['3000']), '127.0.0.1', () => resolve()))
      const readme = readFileSync(join(ROOT, 'docs/guides/backend.md'), 'utf8')
      const from = readme.indexOf('## Use the sandbox from your own backend')
      const section = readme.slice(from, readme.slice(from + 4).search(/\n#{2,3} /) + from + 4)
      const lines = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1].split('\n')).filter((line) => line.trim())
      expect(lines.length).toBeGreaterThanOrEqual(5)
      for (const written of lines) {
        const line = written.replace(/\b(8720|8730|3000)\b/g, (port) => ports[port])
        if (/sandbox start --foreground|&\s*$/.test(line)) {
          const started = background(line.replace(/&\s*$/, ''), {cwd: work, env})
          running.push(started)
          await waitFor(() => /listening on/.test(started.output())).catch(() => {
            throw new Error(`${written}: never said it listens:\n${started.output()}`)
          })
        } else {
          const {code, output} = await foreground(line, {cwd: work, env})
          expect(code, `${written}\n${output}`).toBe(0)
        }
      }
      expect(readFileSync(join(work, '.env.sandbox'), 'utf8')).toContain(`UNIPAY_SANDBOX_BASE_URL=http://127.0.0.1:${ports['8720']}\n`)
      // the callback went through listen to "your backend", verified and forwarded
      await waitFor(() => backend.some((callback) => callback.event === 'refund.success'))
      // and no command started a second sandbox in the CLI's own data folder
      if (!localRunning) expect(existsSync(sandboxRuntimeFile(join(own.env.XDG_DATA_HOME!, 'unipay')))).toBe(false)
    } finally {
      for (const started of running.reverse()) {
        started.child.kill('SIGTERM')
        await started.exited
      }
      await new Promise((resolve) => app.close(resolve))
      rmSync(work, {recursive: true, force: true})
      await own.cleanup()
    }
  })
})

describe('every sandbox command reaches the sandbox the user started', () => {
  it('takes --data-dir, every one of them', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {flags: Record<string, unknown>}>}
    const sandboxCommands = Object.entries(manifest.commands).filter(([id]) => id.startsWith('sandbox:'))
    expect(sandboxCommands.length).toBeGreaterThan(20)
    expect(sandboxCommands.filter(([, command]) => !command.flags['data-dir']).map(([id]) => id)).toEqual([])
  })

  it('one started with --data-dir D: the others use it with --data-dir, UNIPAY_SANDBOX_DIR, or alone, saying so; none starts a second unawares', async () => {
    const own = cli()
    const dir = mkdtempSync(join(tmpdir(), 'unipay-elsewhere-'))
    try {
      const started = (await own.json(['sandbox', 'start', '--data-dir', dir])).body.data
      expect(started.started).toBe(true)
      expect((await own.json(['sandbox', 'credentials', '--data-dir', dir])).body.data.baseUrl).toBe(started.url)
      expect((await own.json(['sandbox', 'credentials'], {env: {UNIPAY_SANDBOX_DIR: dir}})).body.data.baseUrl).toBe(started.url)
      // profile show names the sandbox a call would use
      expect((await own.json(['profile', 'show'], {env: {UNIPAY_SANDBOX_DIR: dir}})).body.data).toMatchObject({name: 'local', baseUrl: started.url})
      const shownAlone = await own.json(['profile', 'show'])
      expect(shownAlone.body.data.baseUrl).toBe(started.url)
      expect(shownAlone.stderr).toContain(`using the sandbox running for ${dir}`)
      const alone = await own.json(['sandbox', 'credentials'])
      expect(alone.body.data.baseUrl).toBe(started.url)
      expect(alone.stderr).toContain(`using the sandbox running for ${dir} (pid ${started.pid}, ${started.url})`)
      const status = (await own.json(['sandbox', 'status'])).body.data
      expect(status).toMatchObject({running: false, runningElsewhere: [`${dir} (pid ${started.pid}, ${started.url})`]})
      // asked for, a second one starts, and the start says so
      const second = await own.json(['sandbox', 'start'])
      expect(second.body.data.url).not.toBe(started.url)
      expect(second.stderr).toContain(`starting a second sandbox, for ${join(own.env.XDG_DATA_HOME!, 'unipay')}: another runs for ${dir}`)
      expect((await own.json(['sandbox', 'credentials'])).body.data.baseUrl).toBe(second.body.data.url)
      // with a sandbox of its own running too, UNIPAY_SANDBOX_DIR still chooses, for a call and for profile show alike
      const called = await own.json(['query', 'pay', '--order-no', 'DP1', '--debug'], {env: {UNIPAY_SANDBOX_DIR: dir}})
      expect(called.stderr).toContain(`POST ${started.url}/unipay/query/pay-order`)
      expect((await own.json(['profile', 'show'], {env: {UNIPAY_SANDBOX_DIR: dir}})).body.data.baseUrl).toBe(started.url)
      expect((await own.json(['profile', 'show'])).body.data.baseUrl).toBe(second.body.data.url)
    } finally {
      await own.run(['sandbox', 'stop', '--data-dir', dir])
      rmSync(dir, {recursive: true, force: true})
      await own.cleanup()
    }
  })
})

describe('sandbox merchants add', () => {
  it('refuses an existing number with exit 2, the built-in merchant included, unless --force', async () => {
    const key = join(c.dir, 'merchant-public.pem')
    writeFileSync(key, generateRsaKeyPair().publicKeyPem)
    const builtIn = await c.run(['sandbox', 'merchants', 'add', 'M1000000001', '--public-key-file', key])
    expect(builtIn.code).toBe(2)
    expect(builtIn.stderr).toContain('merchant M1000000001 already exists (app A1000000001)')
    expect(builtIn.stderr).toContain('the built-in merchant')
    expect(builtIn.stderr).toContain('--force replaces it')
    expect((await c.run(['ping'])).code).toBe(0)
    expect((await c.json(['sandbox', 'merchants', 'add', 'M3000000003', '--public-key-file', key])).body.data).toMatchObject({mchNo: 'M3000000003', replaced: false})
    expect((await c.run(['sandbox', 'merchants', 'add', 'M3000000003', '--public-key-file', key])).code).toBe(2)
    expect((await c.json(['sandbox', 'merchants', 'add', 'M3000000003', '--public-key-file', key, '--app-id', 'A3', '--force'])).body.data).toMatchObject({appId: 'A3', replaced: true})
  })
})

describe('sandbox credentials', () => {
  it('shows each merchant\'s allocation amount unit', async () => {
    expect((await c.run(['sandbox', 'merchants', 'set', 'M1000000001', '--alloc-amount-unit', 'cents'])).code).toBe(0)
    try {
      const creds = (await c.json(['sandbox', 'credentials'])).body.data
      expect(creds.allocAmountUnit).toBe('cents')
      expect(creds.merchants[0]).toEqual({mchNo: 'M1000000001', appId: 'A1000000001', allocAmountUnit: 'cents', epayV1Md5KeyFile: creds.epayV1Md5KeyFile})
      expect((await c.run(['sandbox', 'credentials'])).stdout).toMatch(/allocAmountUnit\s+M1000000001 cents/)
      expect((await c.run(['sandbox', 'credentials', '--format', 'env'])).stdout).toContain('UNIPAY_SANDBOX_ALLOC_AMOUNT_UNIT=cents\n')
    } finally {
      await c.run(['sandbox', 'merchants', 'set', 'M1000000001', '--alloc-amount-unit', 'yuan'])
    }
  })
})

describe('the payee and the channel', () => {
  it('sandbox transfer confirm takes the merchant\'s bizTransferNo', async () => {
    const bizTransferNo = `TC${randomBytes(4).toString('hex')}`
    const created = (await c.json(['transfer', '--channel', 'walletA', '--payee-type', 'openid', '--payee-account', 'oPayee', '--amount', '100', '--biz-transfer-no', bizTransferNo])).body.data
    expect(created.status).toBe('processing')
    const confirmed = await c.json(['sandbox', 'transfer', 'confirm', bizTransferNo])
    expect(confirmed.code).toBe(0)
    expect(confirmed.body.data).toMatchObject({transferNo: created.transferNo, bizTransferNo, status: 'success'})
  })

  it('sandbox trigger alloc.partial says what it sends: alloc.success with data.status partial; listen refuses to wait for alloc.partial', async () => {
    const triggered = await c.json(['sandbox', 'trigger', 'alloc.partial', '--notify-url', 'http://127.0.0.1:9/notify'])
    expect(triggered.code).toBe(0)
    expect(triggered.body.data).toMatchObject({event: 'alloc.success', dataStatus: 'partial', allocNo: expect.any(String)})
    expect((await c.run(['sandbox', 'trigger', 'alloc.partial', '--notify-url', 'http://127.0.0.1:9/notify'])).stderr).toContain('the alloc.success callback (data.status partial) is on its way')
    const listen = await c.run(['listen', '--port', '0', '--events', 'refund.*,alloc.partial'])
    expect(listen.code).toBe(2)
    expect(listen.stderr).toContain('alloc.partial is not an event: a partial split arrives as alloc.success with data.status partial')
  })
})

describe('sandbox logs --failed --limit', () => {
  it('shows the last N failures, however many successes came after them', async () => {
    const creds = (await c.json(['sandbox', 'credentials'])).body.data
    const refused: string[] = []
    for (let i = 0; i < 3; i++) {
      const reqId = `F${i}${randomBytes(4).toString('hex')}`
      refused.push(reqId)
      await fetch(`${creds.baseUrl}/unipay/ping`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({mchNo: creds.mchNo, reqId})})
    }
    // the CLI's own successful calls fill the log after them
    for (let i = 0; i < 6; i++) expect((await c.run(['ping'])).code).toBe(0)
    const {body} = await c.json(['sandbox', 'logs', '--failed', '--limit', '2'])
    expect(body.data).toHaveLength(2)
    expect(body.data.every((e: any) => e.path === '/unipay/ping' && e.code === '10506')).toBe(true)
  })

  it('--follow leaves no listener behind on each poll', async () => {
    // a stand-in for the sandbox's two endpoints that following uses: the ping and the log
    let polls = 0
    const stub = createServer((req, res) => {
      if (req.url!.startsWith('/_sandbox/requests')) polls++
      res.writeHead(200, {'content-type': 'application/json'}).end(req.url!.startsWith('/unipay/callback/ping') ? '{"code":0}' : '{"entries":[],"last":0}')
    })
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', () => resolve()))
    const dataDir = mkdtempSync(join(tmpdir(), 'unipay-follow-'))
    const stop = new AbortController()
    try {
      mkdirSync(join(dataDir, 'sandbox'))
      const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`
      writeFileSync(sandboxRuntimeFile(dataDir), JSON.stringify({pid: process.pid, url, controlSecret: 's', merchant: {}}))
      const following = followRequests({location: {dataDir, home: dataDir}, notice: () => {}}, {after: 0, failed: false, intervalMs: 1}, () => {}, stop.signal)
      await waitFor(() => polls >= 30)
      expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1)
      stop.abort()
      await following
    } finally {
      stop.abort()
      stub.close()
      rmSync(dataDir, {recursive: true, force: true})
    }
  })
})
