// docs/ARCHITECTURE.md's "Layers" table, written from layers.cjs (the import rules
// `npm run layers` enforces): `node scripts/layers-doc.mjs` rewrites it; test/architecture.test.ts
// fails when the two differ.
import {readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'

const require = createRequire(import.meta.url)
const {parts, allowed} = require('../layers.cjs')

export const DOC = fileURLToPath(new URL('../docs/ARCHITECTURE.md', import.meta.url))
export const BEGIN = '<!-- layers: written from layers.cjs by `node scripts/layers-doc.mjs`; edit that file, not this table -->'
export const END = '<!-- end of layers -->'

const name = (part) => `\`${part.endsWith('.ts') ? part : `${part}/`}\``

/** The section between BEGIN and END, as layers.cjs says it. */
export function layersSection() {
  const rows = Object.entries(parts).map(([part, what]) => {
    const targets = allowed[part].map((target) => (typeof target === 'string' ? name(target) : `${name(target.part)} (types only)`))
    return `| ${name(part)} | ${targets.join(', ') || 'nothing in src/'} | ${what} |`
  })
  return [
    BEGIN,
    '| part of src/ | may import (besides itself) | what it is |',
    '| --- | --- | --- |',
    ...rows,
    END,
  ].join('\n')
}

/** The doc with its section rewritten. */
export function withSection(doc) {
  const begin = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  if (begin === -1 || end === -1) throw new Error(`${DOC}: the layers section's markers are missing`)
  return doc.slice(0, begin) + layersSection() + doc.slice(end + END.length)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(DOC, withSection(readFileSync(DOC, 'utf8')))
