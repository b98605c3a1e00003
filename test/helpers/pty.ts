// Runs the built CLI on a pseudo-terminal of a given width, through util-linux `script`, so
// that what a person at a terminal sees (fitted tables, prompts) is what the test sees.
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

export interface Terminal {
  /** Everything the terminal showed (stdout and stderr), line ends as \n, escape sequences kept. */
  output(): string
  /** Resolves when the output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>
  type(text: string): void
  exited: Promise<number>
  /** The pid of `script`, whose child is the CLI (the command execs node). */
  pid: number
}

export function terminal(args: string[], options: {env: NodeJS.ProcessEnv; columns?: number}): Terminal {
  const command = `stty cols ${options.columns ?? 80} rows 50; exec ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`
  const child = spawn('script', ['-qfec', command, '/dev/null'], {env: {...options.env, TERM: 'xterm'}, stdio: ['pipe', 'pipe', 'pipe']})
  let text = ''
  const waiters: (() => void)[] = []
  child.stdout.on('data', (d) => {
    text += String(d).replace(/\r\n/g, '\n')
    for (const waiter of waiters.splice(0)) waiter()
  })
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  return {
    output: () => text,
    exited,
    pid: child.pid!,
    type: (input) => child.stdin.write(input),
    // a deadline that measures nothing (see waitFor in sandbox.ts)
    waitFor: (pattern, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; the terminal shows:\n${text}`)), timeoutMs)
        const check = () => {
          if (pattern.test(text)) {
            clearTimeout(timer)
            resolve()
          } else waiters.push(check)
        }
        check()
      }),
  }
}

/** Runs to the end on a terminal of `columns` and returns what it showed. */
export async function onTerminal(args: string[], env: NodeJS.ProcessEnv, columns: number): Promise<{output: string; code: number}> {
  const t = terminal(args, {env, columns})
  const code = await t.exited
  return {output: t.output(), code}
}
