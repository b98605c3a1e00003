// The test setup's check that dist/ is built from the src/ of now (test/helpers/fresh-dist.ts),
// on a small project in a temporary folder with file times set by hand.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {ensureFreshDist, staleDist} from './helpers/fresh-dist.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'unipay-dist-'))
})
afterEach(() => rmSync(root, {recursive: true, force: true}))

// in the past: a build the test runs writes its outputs now, after all of them
const EARLIER = new Date(Date.now() - 3 * 3600_000)
const BUILT = new Date(Date.now() - 2 * 3600_000)
const LATER = new Date(Date.now() - 3600_000)

function put(file: string, text: string, at: Date): void {
  mkdirSync(dirname(join(root, file)), {recursive: true})
  writeFileSync(join(root, file), text)
  utimesSync(join(root, file), at, at)
}

/** Two sources, their tsconfig files, and a build of them made after all of them. */
function built(): void {
  put('tsconfig.json', '{"compilerOptions": {"target": "ES2022", "module": "NodeNext", "strict": true, "lib": ["ES5"], "types": []}}', EARLIER)
  put('tsconfig.build.json', '{"extends": "./tsconfig.json", "compilerOptions": {"rootDir": "src", "outDir": "dist"}, "include": ["src"]}', EARLIER)
  put('src/index.ts', 'export const answer: number = 42\n', EARLIER)
  put('src/commands/pay/create.ts', 'export const name = "create"\n', EARLIER)
  put('dist/index.js', 'export const answer = 42;\n', BUILT)
  put('dist/commands/pay/create.js', 'export const name = "create";\n', BUILT)
  put('dist/build-complete', 'A whole build\n', BUILT)
}

describe('staleDist', () => {
  it('finds nothing when every output is newer than its source and the tsconfig files', () => {
    built()
    expect(staleDist(root)).toBeUndefined()
  })

  it('names a source edited after the build', () => {
    built()
    utimesSync(join(root, 'src/commands/pay/create.ts'), LATER, LATER)
    expect(staleDist(root)).toBe(`${join('src', 'commands', 'pay', 'create.ts')} changed after the last build`)
  })

  it('names a source added after the build, and a build that never ran', () => {
    built()
    put('src/commands/pay/close.ts', 'export {}\n', EARLIER)
    expect(staleDist(root)).toBe(`${join('dist', 'commands', 'pay', 'close.js')} is missing`)
    rmSync(join(root, 'dist'), {recursive: true})
    expect(staleDist(root)).toBe('there is no dist/')
  })

  it('names a dist/ whose build did not finish', () => {
    built()
    rmSync(join(root, 'dist/build-complete'))
    expect(staleDist(root)).toBe('dist/ is not a finished build (it has no build-complete)')
  })

  it('names an output left of a source that was removed', () => {
    built()
    put('dist/commands/pay/old.js', 'export {};\n', BUILT)
    expect(staleDist(root)).toBe(`${join('dist', 'commands', 'pay', 'old.js')} has no source in src/`)
  })

  it('names a tsconfig changed after the build', () => {
    built()
    utimesSync(join(root, 'tsconfig.build.json'), LATER, LATER)
    expect(staleDist(root)).toBe('tsconfig.build.json changed after the last build')
  })
})

describe('ensureFreshDist', () => {
  it('leaves a current dist/ alone', async () => {
    built()
    const said: string[] = []
    await ensureFreshDist(root, (line) => said.push(line))
    expect(said).toEqual([])
    expect(readFileSync(join(root, 'dist/index.js'), 'utf8')).toBe('export const answer = 42;\n')
  })

  it('builds a stale dist/ afresh, says why, and leaves no output of a removed source', async () => {
    built()
    put('src/index.ts', 'export const answer: number = 43\n', LATER)
    put('dist/commands/pay/old.js', 'export {};\n', BUILT)
    const said: string[] = []
    await ensureFreshDist(root, (line) => said.push(line))
    expect(said).toEqual([`dist/ is out of date (${join('src', 'index.ts')} changed after the last build): building it (npm run build)`])
    expect(readFileSync(join(root, 'dist/index.js'), 'utf8')).toContain('answer = 43')
    expect(existsSync(join(root, 'dist/commands/pay/old.js'))).toBe(false)
    expect(staleDist(root)).toBeUndefined()
    // built aside and moved into place: nothing of the build is left beside dist/
    expect(readdirSync(root).sort()).toEqual(['dist', 'src', 'tsconfig.build.json', 'tsconfig.json'])
  })

  it('refuses when src/ does not compile, and writes nothing, so the next run refuses too', async () => {
    built()
    put('src/index.ts', 'export const answer: number = "forty-two"\n', LATER)
    await expect(ensureFreshDist(root, () => {})).rejects.toThrow(/src\/ does not compile \(tsc exit 1\)[^]*index\.ts.*TS2322/)
    expect(readFileSync(join(root, 'dist/index.js'), 'utf8')).toBe('export const answer = 42;\n')
    expect(staleDist(root)).toMatch(/index\.ts changed after the last build/)
  })
})
