// README's and the guides' commands run as written: every `unipay` (or `./bin/run.js`) command in
// their shell examples names a command that exists, and every flag it passes is one of that
// command's, by the manifest oclif runs from. A renamed command or flag fails here before a reader
// meets it. (Whole sections of the guides are also run, by the tests of what they describe.)
import {readdirSync, readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

interface ManifestFlag {
  name: string
  char?: string
  allowNo?: boolean
}
const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {commands: Record<string, {flags: Record<string, ManifestFlag>}>}
const GUIDES = new URL('../../docs/guides/', import.meta.url)
/** README, docs/development.md and every guide, by name. */
const docs: [string, string][] = [
  ['README.md', readFileSync(new URL('../../README.md', import.meta.url), 'utf8')],
  ['docs/development.md', readFileSync(new URL('../../docs/development.md', import.meta.url), 'utf8')],
  ...readdirSync(GUIDES).map((name): [string, string] => [`docs/guides/${name}`, readFileSync(new URL(name, GUIDES), 'utf8')]),
]
// commands of the plugins, which the manifest of this package does not list
const PLUGIN_COMMANDS = new Set(['autocomplete', 'help'])

/** Shell words of one command line, quotes removed; a `#` comment and what follows a pipe's left side dropped. */
function words(line: string): string[] {
  const found: string[] = []
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*$)|([^\s"']+)/g)) {
    if (match[3] !== undefined) break
    found.push(match[1] ?? match[2] ?? match[4])
  }
  return found
}

/** Every unipay command line in a document's sh and console blocks, continuation lines joined. */
function commandLines(readme: string): string[] {
  const lines: string[] = []
  for (const [, body] of readme.matchAll(/```(?:sh|console)\n([\s\S]*?)```/g)) {
    for (const line of body.replace(/\\\n\s*/g, ' ').split('\n')) {
      for (const part of line.trim().replace(/^\$ /, '').split(/\s(?:\||&&|;)\s/)) {
        const trimmed = part.trim()
        if (/^(unipay|\.\/bin\/run\.js) /.test(trimmed)) lines.push(trimmed)
      }
    }
  }
  return lines
}

describe('README and the guides', () => {
  it('are all here: README links to every guide, and every guide has commands', () => {
    const readme = docs[0][1]
    for (const [name, text] of docs.slice(2)) {
      expect(readme, name).toContain(`](${name})`)
      expect(commandLines(text).length, name).toBeGreaterThan(0)
    }
  })

  it.each(docs)('%s shows only commands and flags that exist', (_, text) => {
    for (const line of commandLines(text)) {
      const args = words(line).slice(1)
      const positional = args.filter((arg) => !arg.startsWith('-'))
      let id = ''
      for (let n = positional.length; n > 0 && !id; n--) {
        const candidate = positional.slice(0, n).join(':')
        if (manifest.commands[candidate] || PLUGIN_COMMANDS.has(candidate)) id = candidate
      }
      if (args[0] === '--version' || args[0] === '--help') continue
      expect(id, `${line}: no such command`).not.toBe('')
      if (PLUGIN_COMMANDS.has(id)) continue
      const flags = Object.values(manifest.commands[id].flags)
      for (const arg of args.filter((a) => a.startsWith('-') && a !== '-')) {
        const name = arg.split('=')[0]
        const known = name.startsWith('--')
          ? flags.some((flag) => name === `--${flag.name}` || (flag.allowNo && name === `--no-${flag.name}`)) || name === '--help'
          : flags.some((flag) => flag.char !== undefined && name === `-${flag.char}`)
        expect(known, `${line}: ${id.replaceAll(':', ' ')} has no ${name}`).toBe(true)
      }
    }
  })
})
