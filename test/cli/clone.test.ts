// A fresh clone has no dist/ (it is not committed, and nothing is compiled at install): README's
// quick start runs `./bin/run.js` right after `npm ci`, so its first run builds the clone, aside,
// moving dist/ into place whole (scripts/build.mjs): a run trusts only a finished build.
import {spawn, spawnSync, type SpawnSyncReturns} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {privateFolders} from '../helpers/env.js'
import {waitFor} from '../helpers/sandbox.js'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// What a clone holds that the build reads (not dist/)
const SOURCES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'bin', 'scripts', 'oclif.manifest.json']
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version

let tmp: string

/** A clone of the sources, with the dependencies installed (linked) or not. */
function clone(name: string, withDependencies: boolean): string {
  const dir = join(tmp, name)
  for (const source of SOURCES) cpSync(join(ROOT, source), join(dir, source), {recursive: true})
  if (withDependencies) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

// every folder of its own (XDG_* set outside would otherwise win over HOME), and no UNIPAY_* from outside
const env = () => ({...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('UNIPAY_'))), ...privateFolders(tmp)})

function run(dir: string, args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(dir, 'bin', 'run.js'), ...args], {cwd: tmp, env: env(), encoding: 'utf8'})
}

/** A run in the background, in its own process group (so that it and its build can be killed together). */
function start(dir: string, args: string[]) {
  const child = spawn(process.execPath, [join(dir, 'bin', 'run.js'), ...args], {cwd: tmp, env: env(), detached: true})
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const done = new Promise<{status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}>((resolve) => child.on('close', (status, signal) => resolve({status, signal, stdout, stderr})))
  return {child, done}
}

/** The folders a build writes aside before moving them into place (scripts/build.mjs). */
const partials = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('dist.partial-'))

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'unipay-clone-'))
  mkdirSync(join(tmp, 'home'))
})

afterAll(() => {
  if (tmp) rmSync(tmp, {recursive: true, force: true})
})

// a whole build of the project (twice in the second test): minutes on a busy machine
const BUILD_TIMEOUT_MS = 600_000

describe('a fresh clone', () => {
  it('is built by its first run after npm ci, which then runs the command; later runs do not build', () => {
    const dir = clone('built-on-first-run', true)
    expect(existsSync(join(dir, 'dist'))).toBe(false)
    const first = run(dir, ['--version'])
    expect(first.status, first.stderr).toBe(0)
    expect(first.stderr).toContain('unipay: building this clone once (npm run build)')
    expect(first.stdout).toContain(`unipay/${VERSION}`)
    expect(existsSync(join(dir, 'dist', 'commands'))).toBe(true)
    expect(existsSync(join(dir, 'dist', 'build-complete'))).toBe(true)
    expect(partials(dir)).toEqual([])
    const second = run(dir, ['--version'])
    expect(second.status).toBe(0)
    expect(second.stderr).not.toContain('building')
  }, BUILD_TIMEOUT_MS)

  it('never runs a half-built dist/ (an older first run cut off, or a build killed half-way), but builds again, once, even for two runs at once', async () => {
    const dir = clone('half-built', true)
    // what an older first run cut off half-way left: dist/commands there, a module missing
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), {recursive: true})
    rmSync(join(dir, 'dist', 'build-complete'), {force: true})
    rmSync(join(dir, 'dist', 'protocol', 'canonical.js'))
    const pair = generateRsaKeyPair()
    writeFileSync(join(tmp, 'merchant.pem'), pair.privateKeyPem, {mode: 0o600})
    const sign = ['sign', '--data', '{"mchNo":"M1","amount":100}', '--private-key', join(tmp, 'merchant.pem'), '--json']

    // a first run killed (with its build) once the compiler has written some of its output aside
    const killed = start(dir, sign)
    let exited = false
    void killed.done.then(() => (exited = true))
    while (!exited && !partials(dir).some((name) => readdirSync(join(dir, name)).length > 0)) await new Promise((resolve) => setTimeout(resolve, 10))
    if (!exited) process.kill(-killed.child.pid!, 'SIGKILL')
    const cut = await killed.done
    expect(cut.signal, cut.stderr).toBe('SIGKILL')
    expect(existsSync(join(dir, 'dist', 'build-complete'))).toBe(false)
    // the build's own process (a grandchild, named in its folder) is gone once the system has
    // reaped it, which on a busy machine comes a little after its parent's end: a build still
    // dying is not one cut off before, and its folder is rightly left to it
    const gone = (name: string) => {
      try {
        process.kill(Number.parseInt(name.slice('dist.partial-'.length), 10), 0)
        return false
      } catch {
        return true
      }
    }
    await waitFor(() => partials(dir).every(gone))

    const [first, second] = await Promise.all([start(dir, sign).done, start(dir, sign).done])
    for (const result of [first, second]) {
      expect(result.status, result.stderr).toBe(0)
      expect(result.stderr).toContain('unipay: building this clone once (npm run build)')
      expect(JSON.parse(result.stdout)).toMatchObject({ok: true, data: {canonicalString: 'amount=100&mchNo=M1'}})
    }
    expect(existsSync(join(dir, 'dist', 'protocol', 'canonical.js'))).toBe(true)
    // what the killed build left aside was cleared by the next ones, and theirs were moved or dropped
    expect(partials(dir)).toEqual([])
    const third = run(dir, sign)
    expect(third.status).toBe(0)
    expect(third.stderr).not.toContain('building')
  }, BUILD_TIMEOUT_MS)

  it('whose code does not compile says so (exit 2), writes nothing to stdout, and is not taken as built next time', () => {
    const dir = clone('does-not-compile', true)
    writeFileSync(join(dir, 'src', 'errors.ts'), `${readFileSync(join(dir, 'src', 'errors.ts'), 'utf8')}\nexport const broken: number = 'not a number'\n`)
    for (const attempt of [1, 2]) {
      const result = run(dir, ['--version', '--json'])
      expect(result.status, `attempt ${attempt}`).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain('unipay: building this clone once (npm run build)')
      expect(result.stderr).toContain("Type 'string' is not assignable to type 'number'")
      expect(result.stderr).toContain(`unipay: the build failed (above); \`npm run build\` in ${dir}/ shows it again`)
      expect(existsSync(join(dir, 'dist', 'commands'))).toBe(false)
    }
  }, BUILD_TIMEOUT_MS)

  it('without its dependencies says to run npm ci (exit 2), and builds nothing', () => {
    const dir = clone('no-dependencies', false)
    const result = run(dir, ['--version'])
    expect(result.status).toBe(2)
    expect(result.stderr).toBe(`unipay: ${dir}/ is a clone without its dependencies: run \`npm ci\` there first\n`)
    expect(existsSync(join(dir, 'dist'))).toBe(false)
  })
})
