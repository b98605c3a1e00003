// `unipay listen` as a long-running subprocess in a test CLI's private environment.
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import type {Cli} from './cli.js'
import {waitFor} from './sandbox.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

export interface RunningListen {
  /** The notifyUrl it printed. */
  url: string
  /** stdout lines so far. */
  lines: string[]
  stderr(): string
  /** Sends the signal and resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>
}

export async function startListen(c: Cli, args: string[]): Promise<RunningListen> {
  const child = spawn(process.execPath, [BIN, 'listen', ...args], {env: c.env, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  const lines: string[] = []
  child.stdout.on('data', (d) => {
    stdout += d
    const parts = stdout.split('\n')
    stdout = parts.pop()!
    lines.push(...parts)
  })
  child.stderr.on('data', (d) => (stderr += d))
  let ended = false
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      ended = true
      resolve(code)
    }),
  )
  let url: string
  try {
    url = await waitFor(() => {
      if (ended) throw new Error('it exited')
      return /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
    })
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`listen did not start: ${stderr}`, {cause: error})
  }
  return {
    url,
    lines,
    stderr: () => stderr,
    stop(signal) {
      child.kill(signal)
      return exited
    },
  }
}
