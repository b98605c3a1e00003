// Runs the built CLI (bin/run.js) as a user would, in a private HOME and XDG folders, so each
// test file gets its own profiles and its own local sandbox on a random port.
import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

export interface RunResult {
  stdout: string
  stderr: string
  code: number
}

export interface Cli {
  dir: string
  env: NodeJS.ProcessEnv
  run(args: string[], options?: {input?: string; env?: NodeJS.ProcessEnv}): Promise<RunResult>
  /** Runs and parses stdout as JSON (the command must be given --json). */
  json(args: string[], options?: {input?: string}): Promise<{code: number; body: any; stderr: string}>
  cleanup(): Promise<void>
}

export function cli(): Cli {
  const dir = mkdtempSync(join(tmpdir(), 'unipay-cli-'))
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('UNIPAY_')) env[key] = value
  Object.assign(env, {
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  })
  mkdirSync(join(dir, 'home'))
  const run: Cli['run'] = (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {env: {...env, ...options.env}, stdio: ['pipe', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      child.on('error', reject)
      child.on('close', (code) => resolve({stdout, stderr, code: code ?? -1}))
      child.stdin.end(options.input ?? '')
    })
  return {
    dir,
    env,
    run,
    async json(args, options) {
      const result = await run([...args, '--json'], options)
      let body: unknown
      try {
        body = JSON.parse(result.stdout)
      } catch {
        throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`)
      }
      return {code: result.code, body, stderr: result.stderr}
    },
    async cleanup() {
      await run(['sandbox', 'stop'])
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
