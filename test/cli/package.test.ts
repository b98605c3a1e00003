// unipay installed as a user installs it: packed from the sources alone (prepack builds it),
// installed globally from the tarball into an empty HOME, then run from another folder. It runs
// on the Node that runs the suite: CI runs the whole suite on Node 20 and on Node 24 (.ci/run).
import {execFileSync, spawnSync, type SpawnSyncReturns} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync} from 'node:fs'
import module from 'node:module'
import {homedir, tmpdir} from 'node:os'
import {delimiter, dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {seedSandboxKeys} from '../helpers/sandbox-keys.js'
import {sandboxRuntimeFile} from '../../src/protocol/local-sandbox.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// What prepack needs to build the package, and what the package carries: not dist/.
const SOURCES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'bin', 'docs', 'README.md', 'LICENSE', 'CHANGELOG.md', 'oclif.manifest.json', 'scripts/build.mjs', 'scripts/sort-manifest.mjs']
// Scripts npm would run on the user's machine at install time.
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare']

let tmp: string
let home: string
let prefix: string
let unpacked: string
let tarballFiles: string[]
let install: SpawnSyncReturns<string>
let env: NodeJS.ProcessEnv

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .filter((path) => statSync(join(dir, path)).isFile())
    .sort()
}

function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('npm', args, {cwd, env, encoding: 'utf8'})
}

/** The installed `unipay`, run from a folder that has nothing of the project. */
function unipay(args: string[]): SpawnSyncReturns<string> {
  return spawnSync(join(prefix, 'bin', 'unipay'), args, {cwd: join(tmp, 'elsewhere'), env, encoding: 'utf8'})
}

// Packing compiles the whole project (tsc) and installing reads 119 packages: minutes, not
// seconds, on a busy 2-core machine.
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'unipay-package-'))
  home = join(tmp, 'home')
  prefix = join(tmp, 'prefix')
  for (const dir of [home, join(tmp, 'elsewhere'), join(tmp, 'out')]) mkdirSync(dir)
  // A user's environment: an empty HOME (so no npmrc and no unipay folders), npm's packages from
  // this machine's npm cache where it has them, and none of the npm_* settings that `npm test`
  // hands its children (they name this machine's npmrc).
  env = {}
  for (const [key, value] of Object.entries(process.env)) if (!/^(npm_|UNIPAY_|XDG_|NODE_COMPILE_CACHE)/i.test(key)) env[key] = value
  Object.assign(env, {
    HOME: home,
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
    // the Node that runs this test runs npm and the installed CLI's `#!/usr/bin/env node`
    PATH: [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH].join(delimiter),
  })

  const source = join(tmp, 'source')
  for (const name of SOURCES) cpSync(join(ROOT, name), join(source, name), {recursive: true})
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'))
  const pack = npm(['pack', '--pack-destination', join(tmp, 'out')], source)
  if (pack.status !== 0) throw new Error(`npm pack: exit ${pack.status}\n${pack.stdout}${pack.stderr}`)
  const [tarball] = readdirSync(join(tmp, 'out'))
  unpacked = join(tmp, 'unpacked')
  mkdirSync(unpacked)
  execFileSync('tar', ['-xzf', join(tmp, 'out', tarball), '-C', unpacked])
  tarballFiles = filesUnder(join(unpacked, 'package'))

  install = npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(tmp, 'out', tarball)], join(tmp, 'elsewhere'))
  seedSandboxKeys(join(home, '.local', 'share', 'unipay'))
  // a limit, not a measure: over 300 s with the machine's two cores shared by many
}, 900_000)

afterAll(() => {
  if (!tmp) return
  const runtime = sandboxRuntimeFile(join(home, '.local', 'share', 'unipay'))
  if (existsSync(runtime)) {
    unipay(['sandbox', 'stop'])
    const {pid} = JSON.parse(readFileSync(runtime, 'utf8')) as {pid: number}
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // stopped
    }
  }
  rmSync(tmp, {recursive: true, force: true})
})

describe('the package', () => {
  it('carries the compiled CLI, its manifest, README, LICENSE, CHANGELOG, the guides and every file they link to, and no sources', () => {
    // a finished build (scripts/build.mjs's stamp): without it bin/run.js would try to build
    for (const file of ['bin/run.js', 'dist/build-complete', 'dist/commands/pay/create.js', 'dist/sandbox/main.js', 'oclif.manifest.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'docs/commands/pay.md', 'docs/performance.md']) {
      expect(tarballFiles, file).toContain(file)
    }
    for (const file of tarballFiles) expect(file).not.toMatch(/^(src|test|scripts|node_modules)\/|^bin\/dev\.js$|\.ts$/)
    // README and the guides it links to: every file they link to is in the package too
    const docs = ['README.md', ...tarballFiles.filter((file) => file.startsWith('docs/guides/'))]
    expect(docs.length).toBeGreaterThan(5)
    let count = 0
    for (const doc of docs) {
      const text = readFileSync(join(unpacked, 'package', doc), 'utf8')
      const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((match) => match[1]).filter((target) => !/^[a-z]+:/.test(target))
      count += links.length
      for (const link of links) expect(tarballFiles, `${doc} links to ${link}`).toContain(relative('.', join(dirname(doc), link)))
    }
    expect(count).toBeGreaterThan(20)
  })

  it('is publishable (Apache-2.0, not private) and runs nothing at install time', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8')) as {private?: boolean; license: string; scripts: Record<string, string>}
    expect(manifest.private).not.toBe(true)
    expect(manifest.license).toBe('Apache-2.0')
    expect(readFileSync(join(unpacked, 'package', 'LICENSE'), 'utf8')).toContain('Apache License\n                           Version 2.0, January 2004')
    for (const script of INSTALL_SCRIPTS) expect(manifest.scripts, script).not.toHaveProperty(script)
  })

  it('installs globally from the tarball with no compile step, no script warning and no engine warning', () => {
    expect(install.status, install.stderr).toBe(0)
    expect(`${install.stdout}${install.stderr}`).not.toMatch(/install-scripts|allowScripts|EBADENGINE|prepare|tsc/)
    // the installed package is the tarball, file for file: nothing was built on this machine
    const installed = join(prefix, 'lib', 'node_modules', 'unipay')
    expect(filesUnder(installed).filter((file) => !file.startsWith('node_modules/'))).toEqual(tarballFiles)
  })
})

describe('the installed unipay, run from another folder with an empty HOME', () => {
  it('prints its version, on this Node', () => {
    const version = unipay(['--version'])
    expect(version.status, version.stderr).toBe(0)
    expect(version.stdout).toMatch(new RegExp(`^unipay/0\\.1\\.0 linux-\\w+ node-${process.version.replaceAll('.', '\\.')}\\n$`))
    // Node 22.1 and later keep compiled code in the CLI's cache folder; Node 20 has no such cache
    expect(existsSync(join(home, '.cache', 'unipay', 'compile-cache'))).toBe('enableCompileCache' in module)
  })

  it('creates a payment against the embedded sandbox, which it starts', () => {
    const created = unipay(['pay', 'create', '--title', 'Coffee', '--amount', '100', '--json'])
    expect(created.status, created.stderr).toBe(0)
    expect(created.stderr).toMatch(/starting the local sandbox in the background \(pid \d+/)
    expect(JSON.parse(created.stdout)).toMatchObject({ok: true, data: {status: 'progress', payBodyType: 'qr_code'}})
    expect(unipay(['sandbox', 'stop']).status).toBe(0)
  })

  it('sets up bash completion that completes its commands', () => {
    const setup = unipay(['autocomplete', 'bash'])
    expect(setup.status, setup.stderr).toBe(0)
    expect(setup.stdout).toContain('unipay autocomplete script bash')
    const functions = join(home, '.cache', 'unipay', 'autocomplete', 'functions', 'bash', 'unipay.bash')
    const script = `source "$1"; COMP_WORDS=(unipay pay cr); COMP_CWORD=2; COMP_LINE="unipay pay cr"; _unipay_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
    // bash lists a name that is both a command and a topic twice
    expect(new Set(execFileSync('bash', ['-c', script, 'complete', functions], {encoding: 'utf8'}).split('\n').filter(Boolean))).toEqual(new Set(['create']))
  })
})
