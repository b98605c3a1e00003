// The base of every command: global flags, the run context (profile, keys, client), output
// through injected streams, and the single place where an error becomes a message and an exit
// code. Nothing is thrown past `catch`, so output is flushed before the process ends.
import {createRequire} from 'node:module'
import type * as OclifArgs from '@oclif/core/args'
import type * as OclifCommand from '@oclif/core/command'
import type * as OclifFlags from '@oclif/core/flags'
import type * as Interfaces from '@oclif/core/interfaces'
import type {ManagementConfig} from '../client/management.js'
import type {ClientConfig, SignedRequest} from '../client/pipeline.js'
import type {UnsignedRequest} from '../client/unsigned.js'
import {BUG_HINT, EXIT_BUG, InterruptedError, isKeyMismatch, NotFoundError, UnipayError, UsageError} from '../errors.js'
import {printableIo, processSink, type Io, type Sink} from '../output/io.js'
import {stringifyJson, toPlain, type JsonObject, type JsonValue} from '../protocol/json.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {ProfileStore} from '../profiles/store.js'

// oclif's command, flags and args parts, not its index (which loads the whole of oclif), and by
// require(): oclif is CommonJS, and an import of a CommonJS file makes Node scan its source for
// export names first (command and flags, cold: 15 ms by import, 5 ms by require()). Commands take
// Flags and Args from here, never from '@oclif/core' (eslint.config.js refuses that import), so a
// command loads no oclif index (docs/performance.md, "Dependencies and start-up").
const require = createRequire(import.meta.url)
const {Command} = require('@oclif/core/command') as typeof OclifCommand
export const Flags = require('@oclif/core/flags') as typeof OclifFlags
export const Args = require('@oclif/core/args') as typeof OclifArgs

export const profileFlags = {
  profile: Flags.string({description: 'profile to use (default: the active profile, else the built-in local sandbox)', helpGroup: 'PROFILE'}),
  'base-url': Flags.string({description: 'override the platform address of the profile', hidden: true, helpGroup: 'PROFILE'}),
  'private-key': Flags.string({description: 'merchant private key file, instead of the profile\'s', helpGroup: 'PROFILE'}),
  'platform-public-key': Flags.string({description: 'platform public key file, instead of the profile\'s', helpGroup: 'PROFILE'}),
}

/** What every call of the platform takes (the compatibility module's too). */
export const callFlags = {
  ...profileFlags,
  'dry-run': Flags.boolean({description: 'print the signed request without sending it'}),
  timeout: Flags.integer({description: 'seconds to wait for each answer', min: 1, default: 15}),
  verify: Flags.boolean({
    description: 'verify the answer\'s signature (--no-verify skips it, with a warning)',
    default: true,
    allowNo: true,
  }),
}

/**
 * A /unipay/* call: the above, and the channel merchant number of direct routing, a common field
 * the spec leaves empty for normal routing. The profile's channelMchNo is a transfer's default
 * (transfers need one), so no other call signs it unless asked to with this flag.
 */
export const apiFlags = {
  ...callFlags,
  'channel-mch-no': Flags.string({description: 'channel merchant number, for direct routing (empty for normal routing; the profile\'s is used by transfers only)'}),
}

export type Flag<T extends Interfaces.FlagInput> = Interfaces.InferredFlags<T>

/**
 * What a dry run returns: no answer, so no `data`; the request it would have sent, as `--json`
 * prints it beside `dryRun: true`.
 */
export interface DryRun<R = SignedRequest> {
  dryRun: true
  request: R
}

/** A dry run of an unsigned call (auth exchange): the request, no string to sign. */
export type UnsignedDryRun = DryRun<UnsignedRequest>

interface RunContext {
  profile: ResolvedProfile
  client: ClientConfig
}

export abstract class BaseCommand extends Command {
  static baseFlags = {
    json: Flags.boolean({description: 'print one JSON document, on success and on error alike', helpGroup: 'GLOBAL'}),
    debug: Flags.boolean({description: 'print the string to sign and the HTTP exchange on stderr (secrets redacted)', helpGroup: 'GLOBAL'}),
  }

  private printer: Io = printableIo(processSink())
  /**
   * Every line a command prints goes through here and is made printable on its way (escape
   * sequences from an answer, a callback or a request never reach the terminal), so that no
   * command can forget it. A test sets its own sink.
   */
  get io(): Io {
    return this.printer
  }

  set io(sink: Sink) {
    this.printer = printableIo(sink)
  }

  /** The profile of this run once resolved, for hints on errors. */
  private resolved?: ResolvedProfile
  /** The warnings of this run, for the --json document. */
  protected readonly warned = new Set<string>()

  /** The exit code this run ends with; read by tests that run commands in-process. */
  exitCode = 0

  protected setExitCode(code: number): void {
    this.exitCode = code
    process.exitCode = code
  }

  protected get json(): boolean {
    const dash = this.argv.indexOf('--')
    const at = this.argv.indexOf('--json')
    return at !== -1 && (dash === -1 || at < dash)
  }

  protected get debugging(): boolean {
    return this.argv.includes('--debug')
  }

  protected notice(message: string): void {
    this.io.err(message)
  }

  /** The warnings of this run so far, for a --json document a command writes itself. */
  protected get warnings(): string[] {
    return [...this.warned]
  }

  /** A warning: on stderr, and in the --json document's `warnings`, so a script sees it too. Each once. */
  protected warning(message: string): string {
    if (this.warned.has(message)) return message
    this.warned.add(message)
    this.notice(`warning: ${message}`)
    return message
  }

  protected profileStore(): ProfileStore {
    return new ProfileStore(this.config.configDir)
  }

  /** The settings in force (flags > env > profile > defaults), warnings shown. */
  protected async resolveProfile(flags: Partial<Flag<typeof profileFlags>>, {startSandbox = true, besideSandbox}: {startSandbox?: boolean; besideSandbox?: {dataDir?: string}} = {}): Promise<ResolvedProfile> {
    // loaded here, not up front: a run given its keys as files (sign, verify) reads no profile
    const {resolveProfile} = await import('../profiles/resolve.js')
    const profile = await resolveProfile({
      store: this.profileStore(),
      dataDir: this.config.dataDir,
      env: process.env,
      flags: {
        profile: flags.profile,
        baseUrl: flags['base-url'],
        privateKeyFile: flags['private-key'],
        platformPublicKeyFile: flags['platform-public-key'],
      },
      notice: (message) => this.notice(message),
      startSandbox,
      besideSandbox,
    })
    // a command may resolve twice (settings first, the sandbox later): each warning once
    for (const warning of profile.warnings) this.warning(warning)
    this.resolved = profile
    return profile
  }

  /**
   * The profile in force and a client for it. A local sandbox that is not running is started on
   * the first call, once that call's fields are checked, so that bad input starts nothing;
   * `{started: true}` starts it now, for a caller that reads the client's address or keys itself.
   */
  protected async context(flags: Partial<Flag<typeof apiFlags>>, {started = false} = {}): Promise<RunContext> {
    const {readRuntime} = await import('../local-sandbox/liveness.js')
    const later = !started && readRuntime(this.config.dataDir) === undefined
    const profile = await this.resolveProfile(flags, {startSandbox: !later})
    if (profile.environment === 'production') {
      this.notice(`PRODUCTION · profile ${profile.name} · ${profile.settings.baseUrl ?? ''} · real money`)
    }
    if (flags.verify === false) this.warning('--no-verify: answers are NOT verified; do not trust them')
    const waiting = later && profile.environment === 'local' && !profile.settings.baseUrl
    if (!profile.settings.baseUrl && !waiting) {
      throw new UsageError(`profile ${profile.name} has no baseUrl; set it with: unipay profile set baseUrl URL --profile ${profile.name}`)
    }
    const settings = (resolved: ResolvedProfile) => ({
      baseUrl: resolved.settings.baseUrl ?? '',
      mchNo: resolved.settings.mchNo,
      appId: resolved.settings.appId,
      privateKey: resolved.privateKey,
      platformKey: resolved.platformKey,
    })
    const client: ClientConfig = {
      ...settings(profile),
      channelMchNo: flags['channel-mch-no'],
      verify: flags.verify !== false,
      timeoutMs: (flags.timeout ?? 15) * 1000,
      debug: this.debugging ? (line) => this.io.err(`[debug] ${line}`) : undefined,
    }
    const context = {profile, client}
    if (waiting) {
      client.connect = async () => {
        delete client.connect
        context.profile = await this.resolveProfile(flags)
        Object.assign(client, settings(context.profile))
      }
    }
    return context
  }

  /** Settings for the management API of the profile in force. */
  protected async managementContext(flags: Partial<Flag<typeof profileFlags>>): Promise<{profile: ResolvedProfile; config: ManagementConfig}> {
    const profile = await this.resolveProfile(flags)
    if (!profile.settings.baseUrl) throw new UsageError(`profile ${profile.name} has no baseUrl`)
    const config: ManagementConfig = {
      baseUrl: profile.settings.baseUrl,
      token: profile.settings.token,
      debug: this.debugging ? (line) => this.io.err(`[debug] ${line}`) : undefined,
    }
    return {profile, config}
  }

  /**
   * Before anything that moves money on a production profile: ask on a terminal, else
   * require --yes.
   */
  protected async confirmMoney(profile: ResolvedProfile, what: string, yes: boolean | undefined, signal?: AbortSignal): Promise<void> {
    if (profile.environment !== 'production' || yes) return
    await this.confirmOrYes({
      question: `${what} on PRODUCTION (${profile.name})?`,
      withoutTerminal: `${what} moves real money on production profile ${profile.name}: pass --yes to confirm`,
      notDone: 'not confirmed; nothing was sent',
      signal,
    })
  }

  /**
   * Before what cannot be undone: asks on a terminal (no is the default), else refuses with
   * `withoutTerminal`, which names --yes. A command calls it only when --yes was not given.
   */
  protected async confirmOrYes({question, withoutTerminal, notDone, signal}: {question: string; withoutTerminal: string; notDone: string; signal?: AbortSignal}): Promise<void> {
    if (!this.io.stdinTty) throw new UsageError(withoutTerminal)
    const {confirm} = await import('@inquirer/prompts')
    // a signal handled by the command (SIGTERM from a supervisor) ends the question too
    const confirmed = await this.prompt(() => confirm({message: question, default: false}, {signal}), notDone, signal)
    if (!confirmed) throw new UsageError(notDone)
  }

  /**
   * Asks on the terminal. Ctrl-C (or a handled signal) ends the run as an interruption, exit
   * 130 (143 for SIGTERM) with one line saying what was not done, not as an error of exit 1.
   */
  protected async prompt<T>(ask: () => Promise<T>, notDone: string, signal?: AbortSignal): Promise<T> {
    try {
      return await ask()
    } catch (error) {
      if (signal?.aborted) throw new InterruptedError(signal.reason, notDone)
      if ((error as Error).name === 'ExitPromptError') throw new InterruptedError('SIGINT', notDone)
      throw error
    }
  }

  /**
   * Prints a result: the JSON document with --json, else what `human` writes. Returns the data
   * printed. The document carries the run's `warnings` (empty when none) and, for a signed
   * answer, `verified` (false with --no-verify): a script can tell a trusted answer from another.
   */
  protected async emit<T>(data: T, human: () => void | Promise<void>, extra: Record<string, unknown> = {}): Promise<T> {
    if (this.json) this.io.out(stringifyJson({ok: true, data, ...extra, warnings: [...this.warned]}, 2))
    else await human()
    return data
  }

  /**
   * Prints data as the platform sent it (number literals exact) and returns it plain (see
   * toPlain), typed as the answer `T` the spec describes; no data is null.
   */
  protected async emitAnswer<T>(data: JsonValue | undefined, human: () => void | Promise<void>, extra: Record<string, unknown> = {}): Promise<T> {
    await this.emit(data, human, extra)
    return (toPlain(data) ?? null) as T
  }

  /**
   * Prints an API call: for a dry run the request (a signed one with its string to sign), else
   * the answer (a signed one verified), and returns what it printed. Unsigned calls (auth
   * exchange) come through here too, so a dry run reads the same whichever it is.
   */
  protected async emitCall<T, R extends SignedRequest | UnsignedRequest>(
    result: {request: R; response?: {body: JsonObject; verified?: boolean; data: T}},
    human: (data: JsonValue) => void | Promise<void>,
  ): Promise<T | DryRun<R>> {
    const sent: SignedRequest | UnsignedRequest = result.request
    const canonicalString = 'canonicalString' in sent ? sent.canonicalString : undefined
    if (!result.response) {
      const {url, body} = sent
      const request = (canonicalString === undefined ? {url, body} : {url, body, canonicalString}) as R
      if (this.json) this.io.out(stringifyJson({ok: true, dryRun: true, request}, 2))
      else {
        this.notice(`dry run: not sent. POST ${url}${canonicalString === undefined ? ' (unsigned)' : ''}`)
        if (canonicalString !== undefined) this.notice(`string to sign: ${canonicalString}`)
        this.io.out(stringifyJson(body, 2))
      }
      return {dryRun: true, request}
    }
    const {body, verified, data} = result.response
    if (verified) this.notice('✓ answer signature verified with the platform public key')
    const signature = canonicalString === undefined ? {} : {verified: verified === true}
    await this.emit(body.data, () => human(body.data ?? null), {...signature, response: body})
    return data
  }

  async catch(error: Error & {oclif?: {exit?: number}}): Promise<void> {
    const known = error instanceof UnipayError
    const oclifExit = error.oclif?.exit
    const parseError = !known && oclifExit === 2
    // anything neither ours nor oclif's (a TypeError) is a bug in the CLI: sysexits' EX_SOFTWARE
    const bug = !known && oclifExit === undefined
    const exitCode = known ? error.exitCode : parseError ? 2 : (oclifExit ?? EXIT_BUG)
    // oclif warns "did not parse its arguments" when parsing itself failed: not our case to report
    this.parsed = true
    if (exitCode === 0) return
    const flagged = known && error instanceof UsageError ? this.describeProblems(error) : []
    if (known && this.resolved && (!error.hint || isKeyMismatch(error) || error instanceof NotFoundError)) {
      // an answer that does not verify: the key in force first, before any step of the command's own
      const {settingsHint} = await import('./hints.js')
      const settings = settingsHint(error, this.resolved)
      if (settings) error.hint = error.hint ? `${settings}\n${error.hint}` : settings
    }
    if (parseError) {
      const [{parseErrorMessage}, {suggestFlags}] = await Promise.all([import('./hints.js'), import('./suggest.js')])
      const command = this.constructor as typeof BaseCommand
      const flags = Object.entries({...command.baseFlags, ...command.flags}).filter(([, flag]) => !flag.hidden).map(([name]) => name)
      error.message = suggestFlags(parseErrorMessage(error.message), flags)
    }
    const hint = known ? error.hint : bug ? BUG_HINT : undefined
    if (this.json) {
      const body: Record<string, unknown> = {
        ok: false,
        error: {
          kind: known ? error.kind : parseError ? 'usage' : 'internal',
          exitCode,
          message: error.message,
          ...(flagged.length ? {problems: flagged} : {}),
          ...(hint ? {hint} : {}),
          ...(known && error.details ? {details: error.details} : {}),
          ...('code' in error && typeof error.code === 'number' ? {code: error.code} : {}),
        },
        warnings: [...this.warned],
      }
      if ('response' in error && error.response) body.response = error.response
      this.io.out(stringifyJson(body, 2))
    } else {
      const lines = [`Error: ${error.message}`]
      for (const problem of flagged) lines.push(`  ${problem.flag}: ${problem.message}`)
      if (hint) lines.push(hint)
      if (bug && this.debugging && error.stack) lines.push(error.stack)
      this.io.err(lines.join('\n'))
    }
    this.setExitCode(exitCode)
  }

  /** Names each bad field by the flag that sets it, when there is one. */
  private describeProblems(error: UsageError): {flag: string; field: string; message: string}[] {
    const flags = (this.constructor as typeof BaseCommand).flags ?? {}
    return error.problems.map(({field, message}) => {
      const kebab = field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
      return {flag: kebab in flags ? `--${kebab}` : field, field, message}
    })
  }
}
