// Command tests load the compiled CLI (dist/), not src/: after an edit in src/, a test run on
// an old dist/ tests the old code and may pass. A build writes every output, so dist/ is current
// when it is a finished build (scripts/build.mjs's stamp: bin/run.js would build again without
// it), every source's output is at least as new as the source and as the tsconfig files, and no
// output is left of a source that is gone (oclif would still find a command in it). Every route
// builds with scripts/build.mjs (`npm run build` in `npm test`, `npm run manifest`), and the
// check costs a few milliseconds.
import {existsSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {build, STAMP} from '../../scripts/build.mjs'

const CONFIGS = ['tsconfig.json', 'tsconfig.build.json']

/** Why `root`/dist is not what `root`/src compiles to, or undefined when it is. */
export function staleDist(root: string): string | undefined {
  const src = join(root, 'src')
  if (!existsSync(join(root, 'dist'))) return 'there is no dist/'
  if (!existsSync(join(root, 'dist', STAMP))) return `dist/ is not a finished build (it has no ${STAMP})`
  let oldestOutput = Infinity
  for (const source of sources(root)) {
    const output = outputOf(root, source)
    if (!existsSync(output)) return `${relative(root, output)} is missing`
    const outputTime = statSync(output).mtimeMs
    if (outputTime < statSync(source).mtimeMs) return `${relative(root, source)} changed after the last build`
    oldestOutput = Math.min(oldestOutput, outputTime)
  }
  for (const config of CONFIGS) {
    const file = join(root, config)
    if (existsSync(file) && statSync(file).mtimeMs > oldestOutput) return `${config} changed after the last build`
  }
  const [orphan] = orphans(root)
  if (orphan) return `${relative(root, orphan)} has no source in ${relative(root, src)}/`
  return undefined
}

/**
 * Builds `root`/dist (as `npm run build` does) when staleDist finds it out of date, saying why.
 * A build with type errors leaves dist/ as it was and throws tsc's report, so every run refuses
 * until src/ compiles, rather than the next one testing a half-built dist/.
 */
export async function ensureFreshDist(root: string, say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<void> {
  const why = staleDist(root)
  if (!why) return
  say(`dist/ is out of date (${why}): building it (npm run build)`)
  const {status, report} = build(root, {output: 'pipe'})
  if (status !== 0) throw new Error(`dist/ is out of date and src/ does not compile (tsc exit ${status}), so the tests would run old code:\n${report}`)
}

const sources = (root: string) => files(join(root, 'src')).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))

const outputOf = (root: string, source: string) => join(root, 'dist', relative(join(root, 'src'), source)).replace(/\.ts$/, '.js')

/** Outputs in dist/ whose source is gone. */
function orphans(root: string): string[] {
  const expected = new Set(sources(root).map((source) => outputOf(root, source)))
  return files(join(root, 'dist')).filter((output) => output.endsWith('.js') && !expected.has(output))
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}
