// Where a command writes: data on stdout, everything else on stderr. Injected so that tests
// and commands share one path, and nothing below the command layer prints.
import {printable} from '../protocol/printable.js'

/** Where text goes as it is: the process's streams, or what a test captures. */
export interface Sink {
  out(text: string): void
  err(text: string): void
  /** stdout is a terminal: aligned tables, QR codes, colours. */
  readonly stdoutTty: boolean
  /** stdin is a terminal: prompts are allowed. */
  readonly stdinTty: boolean
}

/** Escape sequences the CLI drew itself (a QR code's colours): the one text printed as it is. */
export class Drawn {
  constructor(readonly text: string) {}
}

/** What commands print through: every text made printable on its way out, whatever its source. */
export interface Io {
  out(text: string | Drawn): void
  err(text: string): void
  readonly stdoutTty: boolean
  readonly stdinTty: boolean
}

export function processSink(): Sink {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    stdoutTty: Boolean(process.stdout.isTTY),
    stdinTty: Boolean(process.stdin.isTTY),
  }
}

export function printableIo(sink: Sink): Io {
  return {
    out: (text) => sink.out(text instanceof Drawn ? text.text : printable(text)),
    err: (text) => sink.err(printable(text)),
    stdoutTty: sink.stdoutTty,
    stdinTty: sink.stdinTty,
  }
}
