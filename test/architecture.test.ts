// The architecture as rules that fail: the import allow-list and the document that states it
// say the same, every part of src/ is placed in it, and no module of services or the sandbox
// outgrows a file a newcomer reads in one go.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {DOC, withSection} from '../scripts/layers-doc.mjs'

const SRC = fileURLToPath(new URL('../src/', import.meta.url))
const require = createRequire(import.meta.url)
const layers = require('../layers.cjs') as {parts: Record<string, string>; allowed: Record<string, unknown[]>}
const config = require('../.dependency-cruiser.cjs') as {allowedSeverity?: string; allowed?: unknown[]; forbidden?: {name: string; severity: string; to: {circular?: boolean}}[]}

/** Every file below a folder. */
const filesIn = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesIn(join(dir, name)) : [join(dir, name)]))

describe('the layers', () => {
  it('docs/ARCHITECTURE.md states the allow-list layers.cjs holds (run `node scripts/layers-doc.mjs`)', () => {
    const doc = readFileSync(DOC, 'utf8')
    expect(doc).toBe(withSection(doc))
  })

  it('places every part of src/, and the rule is the allow-list, an error when broken', () => {
    expect(Object.keys(layers.parts).sort()).toEqual(readdirSync(SRC).sort())
    expect(Object.keys(layers.allowed).sort()).toEqual(readdirSync(SRC).sort())
    expect(config.allowedSeverity).toBe('error')
    expect(config.allowed?.length).toBeGreaterThan(Object.keys(layers.allowed).length)
  })

  it('refuses import cycles, type-only ones included', () => {
    expect(config.forbidden?.find((rule) => rule.to.circular)).toMatchObject({name: 'no-circular', severity: 'error'})
  })
})

describe('docs/ARCHITECTURE.md, "Modules"', () => {
  const doc = readFileSync(DOC, 'utf8')
  const section = doc.slice(doc.indexOf('## Modules'), doc.indexOf('## Layers'))
  /** The modules a part's paragraph names, by their paths in the part (`file.ts`, `folder/file.ts`). */
  const named = (part: string): string[] => {
    const paragraph = new RegExp(`\\*\\*\`${part}/\`\\*\\*:([\\s\\S]*?)(?:\\n\\n|$)`).exec(section)?.[1] ?? ''
    return [...paragraph.matchAll(/`([\w./-]+\.ts)`/g)].map((match) => match[1])
  }

  it.each(readdirSync(SRC).filter((part) => part !== 'commands' && part !== 'errors.ts'))('names every module of %s/, and only those', (part) => {
    const files = filesIn(join(SRC, part)).map((file) => file.slice(join(SRC, part).length + 1)).sort()
    expect([...new Set(named(part))].sort()).toEqual(files)
  })
})

describe('file sizes', () => {
  it('keeps every module of src/ under about 400 lines', () => {
    const long = filesIn(SRC)
      .map((file) => ({file: file.slice(SRC.length), lines: readFileSync(file, 'utf8').split('\n').length}))
      .filter(({lines}) => lines > 400)
    expect(long).toEqual([])
  })
})
