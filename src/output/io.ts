// Where a command writes: data on stdout, everything else on stderr. Injected so that tests
// and commands share one path, and nothing below the command layer prints.
export interface Io {
  out(text: string): void
  err(text: string): void
  /** stdout is a terminal: aligned tables, QR codes, colours. */
  readonly stdoutTty: boolean
  /** stdin is a terminal: prompts are allowed. */
  readonly stdinTty: boolean
}

export function processIo(): Io {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    stdoutTty: Boolean(process.stdout.isTTY),
    stdinTty: Boolean(process.stdin.isTTY),
  }
}
