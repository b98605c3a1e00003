// The sandbox daemon: `node dist/sandbox/main.js --data-dir DIR [--port N | --preferred-port N]
// [--host ADDR] [--time-scale N] [--log-requests]`. Started in the background by the CLI, or in
// the foreground by `sandbox start --foreground`; publishes its address in runtime.json and
// removes it on a clean stop (SIGTERM, SIGINT).
import {renameSync, rmSync, writeFileSync} from 'node:fs'
import {isIP} from 'node:net'
import {parseArgs} from 'node:util'
import {sandboxPortFile, sandboxRuntimeFile} from '../protocol/local-sandbox.js'
import {formatRequestLine} from './request-log.js'
import {startSandbox} from './server.js'
import {JournalWriteError} from './store.js'

const {values} = parseArgs({
  options: {
    'data-dir': {type: 'string'},
    port: {type: 'string'},
    'preferred-port': {type: 'string'},
    host: {type: 'string', default: '127.0.0.1'},
    'time-scale': {type: 'string', default: '1'},
    'no-replay-checks': {type: 'boolean', default: false},
    'token-ttl': {type: 'string'},
    'log-requests': {type: 'boolean', default: false},
  },
})

const dataDir = values['data-dir']
if (!dataDir) {
  process.stderr.write('sandbox: --data-dir is required\n')
  process.exit(2)
}

// A secret chosen by the operator (a CI job that starts the sandbox and its tests separately)
// comes through the environment, never argv.
const givenSecret = process.env.UNIPAY_SANDBOX_CONTROL_SECRET || undefined
const sandbox = await startSandbox({
  dataDir,
  port: Number(values.port ?? values['preferred-port'] ?? 0),
  portFallback: values.port === undefined,
  host: values.host,
  timeScale: Number(values['time-scale']) || 1,
  replayChecks: !values['no-replay-checks'],
  tokenTtlSeconds: values['token-ttl'] ? Number(values['token-ttl']) : undefined,
  controlSecret: givenSecret,
  onRequest: values['log-requests'] ? (entry) => process.stdout.write(`${formatRequestLine(entry)}\n`) : undefined,
  // a full disk: the failing request was refused; everything acknowledged is in the journal, so
  // stop cleanly rather than serve a state the journal lacks (the next start replays it)
  onJournalFailure(message) {
    process.stderr.write(`sandbox: ${message}; stopping now (nothing acknowledged is lost: free some space, then start it again)\n`)
    setImmediate(() => void stop(1))
  },
}).catch((error: NodeJS.ErrnoException) => {
  // the journal failed while starting (told above): nothing more to say
  if (error instanceof JournalWriteError) process.exit(1)
  if (error.code !== 'EADDRINUSE' && error.code !== 'EADDRNOTAVAIL') throw error
  process.stderr.write(`sandbox: cannot listen on ${values.host} port ${values.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : 'no such local address'}\n`)
  process.exit(1)
})
const runtimeFile = sandboxRuntimeFile(dataDir)
writeFileSync(`${runtimeFile}.tmp`, JSON.stringify(sandbox.runtime, null, 2), {mode: 0o600})
renameSync(`${runtimeFile}.tmp`, runtimeFile)
writeFileSync(sandboxPortFile(dataDir), `${new URL(sandbox.url).port}\n`, {mode: 0o600})
process.stdout.write(`sandbox listening on ${sandbox.url} (pid ${process.pid})\n`)
const loopback = values.host === 'localhost' || values.host === '::1' || (isIP(values.host) === 4 && values.host.startsWith('127.'))
if (!loopback && !givenSecret) {
  // Beyond loopback the runtime file is out of reach of the other machines' tools: say it once.
  process.stdout.write(`control secret (header x-unipay-sandbox-secret): ${sandbox.runtime.controlSecret}\n`)
}

let stopping = false
async function stop(code = 0): Promise<void> {
  if (stopping) return
  stopping = true
  rmSync(runtimeFile, {force: true})
  await sandbox.close()
  process.stdout.write('sandbox stopped\n')
  process.exit(code)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
