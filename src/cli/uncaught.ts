// What reaches bin/run.js: an error outside every command's `catch` (oclif loading a plugin, a
// plugin's command, a hook, a command that failed before its own catch ran). oclif's own errors
// (usage errors, exit requests) carry their exit code and go to oclif's handler, which keeps
// them; anything else is a bug in the CLI: exit 70 with the line asking to report it, as
// BaseCommand.catch says it (issue 28, point 7).
import {BUG_HINT, EXIT_BUG} from '../errors.js'
import {printable} from '../protocol/printable.js'

export async function handleUncaught(error: unknown, argv: string[] = process.argv.slice(2)): Promise<void> {
  const oclifExit = (error as {oclif?: {exit?: number}} | undefined)?.oclif?.exit
  if (oclifExit !== undefined) {
    const {handle} = await import('@oclif/core/handle')
    return handle(error as Error)
  }
  const message = printable(error instanceof Error ? error.message : String(error))
  const dash = argv.indexOf('--')
  const before = (flag: string) => argv.includes(flag) && (dash === -1 || argv.indexOf(flag) < dash)
  if (before('--json')) {
    const body = {ok: false, error: {kind: 'internal', exitCode: EXIT_BUG, message, hint: BUG_HINT}, warnings: []}
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`)
  } else {
    const stack = before('--debug') && error instanceof Error && error.stack ? `\n${printable(error.stack)}` : ''
    process.stderr.write(`Error: ${message}\n${BUG_HINT}${stack}\n`)
  }
  process.exit(EXIT_BUG)
}
