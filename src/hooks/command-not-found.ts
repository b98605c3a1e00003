// An unknown command is a usage error like any other: the tool's message style, exit 2, the
// closest command suggested, and the JSON error document with --json.
import type {Hook} from '@oclif/core'
import {closest} from '../protocol/closest.js'
import {printable} from '../protocol/printable.js'

const hook: Hook<'command_not_found'> = async function (options) {
  const typed = printable(options.id.replace(/:/g, ' '))
  const commands = options.config.commands.filter((c) => !c.hidden).map((c) => c.id.replace(/:/g, ' '))
  const suggestion = closest(typed, commands)
  const bin = options.config.bin
  const message = `unknown command "${typed}"${suggestion ? `: did you mean ${suggestion}?` : ''}`
  const hint = suggestion ? `run: ${bin} ${suggestion} --help` : `\`${bin} --help\` lists the commands`
  const argv = options.argv ?? []
  const dash = argv.indexOf('--')
  const json = argv.includes('--json') && (dash === -1 || argv.indexOf('--json') < dash)
  if (json) {
    const error = {kind: 'usage', exitCode: 2, message, hint, ...(suggestion ? {suggestion} : {})}
    process.stdout.write(`${JSON.stringify({ok: false, error, warnings: []}, null, 2)}\n`)
  } else process.stderr.write(`Error: ${message}\n${hint}\n`)
  process.exitCode = 2
  return undefined
}

export default hook
