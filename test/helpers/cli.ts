// Runs the built CLI as a user would, in a private HOME and XDG folders, so each test file gets
// its own profiles and its own local sandbox on a random port.
//
// By default a command runs in this process: oclif loads this repo's built commands (dist/) with
// the private environment applied, the command writes to captured streams, and its exit code is
// the one `BaseCommand.catch` sets. That skips a Node start per command, which is most of the
// suite's time. What only a real process shows goes to `bin/run.js` as a subprocess: pass
// `cli({process: true})`, and every run that reads stdin, asks for help or the version, or
// runs a plugin's command goes there on its own. UNIPAY_TEST_CLI=process runs every command as a
// subprocess (to compare, or to rule the in-process layer out when a test fails).
//
// An in-process run also hands back what the command's run() returned: the typed result that
// --json prints as `data` (or the dry run's request). `c.result<PayCreateResult>([...])` gives
// it for a command that must succeed; `c.dryRun<PayCreateResult>([...])` the request a dry run
// would send. A subprocess has no returned value: there both read it from --json instead
// (test/cli/results.test.ts holds the two equal).
//
// Tests about the client can also keep the local sandbox in this process:
// `cli({sandbox: 'in-process'})` starts it on the first run and publishes it in the test's
// runtime.json, where the CLI finds it as it finds the daemon. No daemon start, no second
// process for what the test is not about. `sandbox start`, `stop` and `reset` then refuse: they
// manage the daemon by its pid, which would be this process.
import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Config, settings, type Command} from '@oclif/core'
import {sandboxRuntimeFile} from '../../src/protocol/local-sandbox.js'
import {parseJson, toPlain} from '../../src/protocol/json.js'
import {startSandbox, type RunningSandbox} from '../../src/sandbox/server.js'
import {seedSandboxKeys} from './sandbox-keys.js'
import {privateFolders, withEnv} from './env.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'bin/run.js')

export interface RunResult<T = unknown> {
  stdout: string
  stderr: string
  code: number
  /** What the command's run() returned: in-process runs only; undefined when it failed (an error, not a batch's exit 5 or 6). */
  result?: T
}

/** A command's result but a dry run's request (`{dryRun: true, request}`) and no result at all (listen, sandbox start --foreground). */
type Answered<T> = Exclude<T, {dryRun: true} | undefined>
/** A command's dry-run result. */
type DryRunOf<T> = Extract<T, {dryRun: true}>

export interface RunOptions {
  input?: string
  env?: NodeJS.ProcessEnv
}

export interface Cli {
  dir: string
  env: NodeJS.ProcessEnv
  run<T = unknown>(args: string[], options?: RunOptions): Promise<RunResult<T>>
  /** Runs and parses stdout as JSON (the command must be given --json). */
  json(args: string[], options?: RunOptions): Promise<{code: number; body: any; stderr: string}>
  /** The result of a command that must succeed (and not be a dry run), typed as the command's result type says. */
  result<T>(args: string[], options?: RunOptions): Promise<Answered<T>>
  /** Runs with --dry-run: the request it would send. */
  dryRun<T>(args: string[], options?: RunOptions): Promise<DryRunOf<T>>
  cleanup(): Promise<void>
}

export interface CliOptions {
  /** Every command as a `bin/run.js` subprocess (exit codes on signals, daemons, kill -9, TTY). */
  process?: boolean
  /** Where the local sandbox runs: the daemon the CLI starts (default), or this process. */
  sandbox?: 'daemon' | 'in-process'
  /** Start the sandbox with the run's shared key pairs (default), or let it make its own. */
  seedKeys?: boolean
}

export function cli(options: CliOptions = {}): Cli {
  const dir = mkdtempSync(join(tmpdir(), 'unipay-cli-'))
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('UNIPAY_')) env[key] = value
  Object.assign(env, privateFolders(dir))
  mkdirSync(join(dir, 'home'))
  const dataDir = join(dir, 'data', 'unipay')
  if (options.seedKeys !== false) seedSandboxKeys(dataDir)
  let config: Promise<Config> | undefined
  let sandbox: Promise<RunningSandbox> | undefined
  const run = async <T>(args: string[], runOptions: RunOptions = {}): Promise<RunResult<T>> => {
    const runEnv = {...env, ...runOptions.env}
    if (options.sandbox === 'in-process') {
      if (args[0] === 'sandbox' && ['start', 'stop', 'reset'].includes(args[1])) {
        throw new Error(`sandbox ${args[1]}: this test's sandbox runs in-process (cli({sandbox: 'in-process'})); use a daemon for it`)
      }
      sandbox ??= startInProcess(dataDir)
      await sandbox
    }
    if (options.process || process.env.UNIPAY_TEST_CLI === 'process' || needsProcess(args, runOptions)) return runProcess(args, runEnv, runOptions.input)
    // oclif reads HOME and XDG_* when it loads (configDir, dataDir): load with this CLI's env
    config ??= withEnv(env, () => loadConfig())
    const found = findCommand(await config, args)
    if (!found) return runProcess(args, runEnv, runOptions.input)
    return withEnv(runEnv, () => runInProcess<T>(found.command, found.argv, config!))
  }
  /** The returned value of a successful run; a subprocess's from its --json `data` (a dry run's: the document but `ok`). */
  const resultOf = async <T>(args: string[], runOptions?: RunOptions): Promise<T> => {
    const inProcess = !options.process && process.env.UNIPAY_TEST_CLI !== 'process' && !needsProcess(args, runOptions ?? {})
    const ran = await run<T>(inProcess ? args : [...args, '--json'], runOptions)
    if (ran.code !== 0) throw new Error(`${args.join(' ')}: exit ${ran.code}\n${ran.stdout}${ran.stderr}`)
    if (inProcess) return ran.result as T
    const {ok: _ok, data, ...rest} = toPlain(parseJson(ran.stdout)) as Record<string, unknown>
    return (rest.dryRun ? rest : data) as T
  }
  return {
    dir,
    env,
    run,
    async result<T>(args: string[], runOptions?: RunOptions) {
      const value = await resultOf<T>(args, runOptions)
      if (value === undefined) throw new Error(`${args.join(' ')}: no result`)
      if ((value as {dryRun?: boolean} | null)?.dryRun) throw new Error(`${args.join(' ')}: a dry run, not a result (use dryRun)`)
      return value as Answered<T>
    },
    async dryRun<T>(args: string[], runOptions?: RunOptions) {
      return (await resultOf<T>([...args, '--dry-run'], runOptions)) as DryRunOf<T>
    },
    async json(args, runOptions) {
      const result = await run([...args, '--json'], runOptions)
      let body: unknown
      try {
        body = JSON.parse(result.stdout)
      } catch {
        throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`)
      }
      return {code: result.code, body, stderr: result.stderr}
    },
    async cleanup() {
      try {
        if (sandbox) await (await sandbox).close()
        else await run(['sandbox', 'stop'])
      } finally {
        rmSync(dir, {recursive: true, force: true})
      }
    },
  }
}

/** A sandbox in this process, published where the CLI looks for the local one (as the daemon does). */
async function startInProcess(dataDir: string): Promise<RunningSandbox> {
  const sandbox = await startSandbox({dataDir, port: 0, log: () => {}})
  const file = sandboxRuntimeFile(dataDir)
  writeFileSync(`${file}.tmp`, JSON.stringify(sandbox.runtime, null, 2), {mode: 0o600})
  renameSync(`${file}.tmp`, file)
  return sandbox
}

/** Standard input (fd 0 cannot be given to an in-process command), help and version output. */
function needsProcess(args: string[], options: RunOptions): boolean {
  if (options.input) return true
  return args.some((arg) => arg === '-' || arg.endsWith('=-') || arg.endsWith('-stdin') || arg === '--help' || arg === '-h' || arg === '--version' || arg === 'help')
}

function runProcess(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<RunResult<never>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({stdout, stderr, code: code ?? -1}))
    child.stdin.end(input)
  })
}

async function loadConfig(): Promise<Config> {
  // as bin/run.js: the compiled commands, never the sources through a transpiler
  settings.enableAutoTranspile = false
  return Config.load({root: ROOT})
}

/** The longest leading run of words that names one of this CLI's own commands (`pay create`). */
function findCommand(config: Config, args: string[]): {command: Command.Loadable; argv: string[]} | undefined {
  const words = args.findIndex((arg) => arg.startsWith('-'))
  for (let n = words === -1 ? args.length : words; n > 0; n--) {
    const command = config.findCommand(args.slice(0, n).join(':'))
    // plugins' commands (help, autocomplete) print through oclif, not through BaseCommand's io
    if (command && command.pluginName === config.name) return {command, argv: args.slice(n)}
  }
  return undefined
}

/** What the helper reaches inside a BaseCommand: its streams, its exit code, oclif's entry. */
interface Runnable {
  io: {out(text: string): void; err(text: string): void; stdoutTty: boolean; stdinTty: boolean}
  exitCode: number
  _run(): Promise<unknown>
}

async function runInProcess<T>(loadable: Command.Loadable, argv: string[], config: Promise<Config>): Promise<RunResult<T>> {
  let stdout = ''
  let stderr = ''
  let result: T | undefined
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`)
  const CommandClass = (await loadable.load()) as unknown as new (argv: string[], config: Config) => Runnable
  const command = new CommandClass(argv, await config)
  command.io = {out: (text) => (stdout += line(text)), err: (text) => (stderr += line(text)), stdoutTty: false, stdinTty: false}
  let code: number
  try {
    // BaseCommand.catch reports an error without rethrowing it: a run that failed returns nothing
    result = (await command._run()) as T
    code = command.exitCode
  } catch (error) {
    stderr += line(error instanceof Error ? (error.stack ?? error.message) : String(error))
    code = command.exitCode || 1
  }
  // the command also set process.exitCode, as it must for a real run; this worker is not ending
  process.exitCode = undefined
  return {stdout, stderr, code, result}
}

/**
 * Starts the local sandbox of a test's CLI with its clock standing still (`sandbox clock pause`):
 * nothing falls due, a settlement, a callback retry, an expiry, until the test moves the clock
 * (`sandbox clock advance`), so no test races the machine's speed. Returns `sandbox start`'s result
 * and the time the clock stands at (`now`, GMT+8).
 */
export async function startPausedSandbox(on: Cli): Promise<{url: string; pid: number; now: string}> {
  const started = await on.json(['sandbox', 'start'])
  if (started.code !== 0) throw new Error(`sandbox start: exit ${started.code}\n${started.stderr}`)
  const paused = await on.json(['sandbox', 'clock', 'pause'])
  if (paused.code !== 0) throw new Error(`sandbox clock pause: exit ${paused.code}\n${paused.stderr}`)
  return {...started.body.data, now: paused.body.data.now}
}
