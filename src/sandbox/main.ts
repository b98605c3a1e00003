// The sandbox daemon: `node dist/sandbox/main.js --data-dir DIR [--port N] [--time-scale N]`.
// Started in the background by the CLI; publishes its address in runtime.json and removes it
// on a clean stop.
import {renameSync, rmSync, writeFileSync} from 'node:fs'
import {parseArgs} from 'node:util'
import {sandboxRuntimeFile} from '../protocol/local-sandbox.js'
import {startSandbox} from './server.js'

const {values} = parseArgs({
  options: {
    'data-dir': {type: 'string'},
    port: {type: 'string', default: '0'},
    host: {type: 'string', default: '127.0.0.1'},
    'time-scale': {type: 'string', default: '1'},
    'no-replay-checks': {type: 'boolean', default: false},
    'token-ttl': {type: 'string'},
  },
})

const dataDir = values['data-dir']
if (!dataDir) {
  process.stderr.write('sandbox: --data-dir is required\n')
  process.exit(2)
}

const sandbox = await startSandbox({
  dataDir,
  port: Number(values.port),
  host: values.host,
  timeScale: Number(values['time-scale']) || 1,
  replayChecks: !values['no-replay-checks'],
  tokenTtlSeconds: values['token-ttl'] ? Number(values['token-ttl']) : undefined,
})
const runtimeFile = sandboxRuntimeFile(dataDir)
writeFileSync(`${runtimeFile}.tmp`, JSON.stringify(sandbox.runtime, null, 2), {mode: 0o600})
renameSync(`${runtimeFile}.tmp`, runtimeFile)
process.stdout.write(`sandbox listening on ${sandbox.url} (pid ${process.pid})\n`)

let stopping = false
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  rmSync(runtimeFile, {force: true})
  await sandbox.close()
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
