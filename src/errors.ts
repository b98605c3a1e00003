// Every failure the CLI reports, one class per kind, each with its exit code (PRODUCT.md):
// 1 platform error, 2 bad input, 3 signature, 4 transport, 5 batch rows failed, 74 (sysexits'
// EX_IOERR) a local file could not be written mid-run, 130/143 interrupted by SIGINT/SIGTERM;
// 70 (sysexits' EX_SOFTWARE) for a bug in the CLI itself.
import type {FieldProblem} from './protocol/schemas.js'

/** A failure neither ours nor oclif's (a TypeError): a bug in the CLI, with a line asking to report it. */
export const EXIT_BUG = 70
/** Where an MD5 key comes from, for every command that needs one and has none. */
export const NO_MD5_KEY = 'no MD5 key: pass --md5-key-file FILE or set one in the profile (printf %s "$MD5_KEY" | unipay profile set md5Key -)'

export const BUG_HINT = 'this is a bug in unipay, not in your input or the platform: please report it with the command you ran and its --debug output'

export abstract class UnipayError extends Error {
  abstract readonly exitCode: number
  abstract readonly kind: string
  /** A next step for the user, shown under the message. */
  hint?: string
  /** Structured facts for --json (strings compared, keys used). */
  details?: Record<string, unknown>
}

export class UsageError extends UnipayError {
  readonly exitCode = 2
  readonly kind = 'usage'
  constructor(
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message)
  }
}

export class PlatformError extends UnipayError {
  readonly exitCode = 1
  readonly kind = 'platform'
  constructor(
    readonly code: number,
    readonly platformMessage: string,
    /** false: a /unipay answer that came back unsigned; undefined: an envelope that is never signed. */
    readonly signed: boolean | undefined,
    readonly response?: unknown,
  ) {
    super(`platform error ${code}: ${platformMessage}${signed === false ? ' (unsigned answer)' : ''}`)
  }
}

export class SignatureError extends UnipayError {
  readonly exitCode = 3
  readonly kind = 'signature'
  constructor(
    message: string,
    readonly response?: unknown,
  ) {
    super(message)
  }
}

export class TransportError extends UnipayError {
  readonly exitCode = 4
  readonly kind = 'transport'
  constructor(
    message: string,
    /** true when a create may have reached the platform: query before resending. */
    readonly outcomeUnknown = false,
  ) {
    super(message)
  }
}

export class ConfigError extends UnipayError {
  readonly exitCode = 2
  readonly kind = 'config'
}

/** A local file the run needed (a journal, a results file) could not be written once it had begun: full disk, a folder gone. */
export const EXIT_LOCAL_WRITE = 74

export class LocalWriteError extends UnipayError {
  readonly exitCode = EXIT_LOCAL_WRITE
  readonly kind = 'local-write'
  constructor(
    readonly path: string,
    cause: unknown,
    what: string,
  ) {
    super(`${path} could not be written (${writeProblem(cause)}): ${what}`)
  }
}

/** Why a write failed, in words: the common cases named, else the system's code. */
export function writeProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  const words: Record<string, string> = {ENOSPC: 'no space left on the device', EFBIG: 'the file is over the size this process may write', EDQUOT: 'the disk quota is used up', EROFS: 'a read-only file system', EIO: 'an input/output error'}
  return (code && (words[code] ?? READ_PROBLEMS[code])) ?? code ?? (error as Error).message
}

/** SIGINT or SIGTERM before anything was sent: exit as the shell reports the signal (130, 143). */
export class InterruptedError extends UnipayError {
  readonly exitCode: number
  readonly kind = 'interrupted'
  constructor(signal: unknown, what: string) {
    super(`${String(signal)}: ${what}`)
    this.exitCode = signal === 'SIGTERM' ? 143 : 130
  }
}

const READ_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of its path is not a folder',
}

/** Why a file could not be read, in words rather than an errno code. */
export function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return (code && READ_PROBLEMS[code]) ?? code ?? (error as Error).message
}
