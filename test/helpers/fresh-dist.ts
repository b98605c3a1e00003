// Command tests load the compiled CLI (dist/), not src/: after an edit in src/, a test run on
// an old dist/ tests the old code and may pass. tsc writes every output on each build, so dist/
// is current when every source's output is at least as new as the source and as the tsconfig
// files, and no output is left of a source that is gone (tsc never removes one, and oclif would
// still find a command in it). Comparing times needs no stamp, so a build by any route counts
// (`npm run build` in `npm test`, `npm run manifest`), and costs a few milliseconds.
import {spawn} from 'node:child_process'
import {existsSync, readdirSync, rmSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join, relative} from 'node:path'

const CONFIGS = ['tsconfig.json', 'tsconfig.build.json']

/** Why `root`/dist is not what `root`/src compiles to, or undefined when it is. */
export function staleDist(root: string): string | undefined {
  const src = join(root, 'src')
  if (!existsSync(join(root, 'dist'))) return 'there is no dist/'
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
 * A build with type errors writes nothing (--noEmitOnError) and throws tsc's report, so every
 * run refuses until src/ compiles, rather than the next one testing a half-built dist/.
 */
export async function ensureFreshDist(root: string, say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<void> {
  const why = staleDist(root)
  if (!why) return
  say(`dist/ is out of date (${why}): building it (npm run build)`)
  for (const orphan of orphans(root)) rmSync(orphan)
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const {code, output} = await new Promise<{code: number | null; output: string}>((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noEmitOnError'], {cwd: root, stdio: ['ignore', 'pipe', 'pipe']})
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, output}))
  })
  if (code !== 0) throw new Error(`dist/ is out of date and src/ does not compile (tsc exit ${code}), so the tests would run old code:\n${output}`)
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
