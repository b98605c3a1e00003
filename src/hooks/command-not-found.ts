// An unknown command is a usage error like any other: the tool's message style, exit 2, the
// closest command suggested, and the JSON error document with --json.
import type {Hook} from '@oclif/core'
import {closestCommand} from '../cli/suggest.js'
import {printable} from '../protocol/printable.js'

const hook: Hook<'command_not_found'> = async function (options) {
  const typed = printable(options.id.replace(/:/g, ' '))
  const commands = options.config.commands.filter((c) => !c.hidden).map((c) => c.id.replace(/:/g, ' '))
  const closest = closestCommand(typed, commands)
  const bin = options.config.bin
  const message = `unknown command "${typed}"${closest ? `: did you mean ${closest}?` : ''}`
  const hint = closest ? `run: ${bin} ${closest} --help` : `\`${bin} --help\` lists the commands`
  const argv = options.argv ?? []
  const dash = argv.indexOf('--')
  const json = argv.includes('--json') && (dash === -1 || argv.indexOf('--json') < dash)
  if (json) {
    const error = {kind: 'usage', exitCode: 2, message, hint, ...(closest ? {suggestion: closest} : {})}
    process.stdout.write(`${JSON.stringify({ok: false, error}, null, 2)}\n`)
  } else process.stderr.write(`Error: ${message}\n${hint}\n`)
  process.exitCode = 2
  return undefined
}

export default hook
