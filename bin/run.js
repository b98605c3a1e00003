#!/usr/bin/env node
// Start-up is most of a call's time, so only oclif's entry points are loaded here, not its
// index. The index checks oclif's own Node engine with semver (47 files) on every start; our
// package.json states the engine we need, so that check is switched off before anything loads.
import module from 'node:module'

// Node 22.1 and later keep the code they compiled for the next start (Node 20 has no such
// cache): in the CLI's cache folder, the one oclif uses (UNIPAY_CACHE_DIR, else the platform's).
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; a NODE_COMPILE_CACHE of the user's wins.
if (module.enableCompileCache && process.getBuiltinModule) {
  const {env, platform} = process
  const {join} = process.getBuiltinModule('node:path')
  const home = env.HOME || process.getBuiltinModule('node:os').homedir()
  const cacheDir =
    env.UNIPAY_CACHE_DIR ||
    (platform === 'darwin' ? join(home, 'Library', 'Caches', 'unipay') : join(env.XDG_CACHE_HOME || (platform === 'win32' && env.LOCALAPPDATA) || join(home, '.cache'), 'unipay'))
  module.enableCompileCache(join(cacheDir, 'compile-cache'))
}

// A clone has no compiled code until it is built (a package always has it, and never builds):
// its first run builds it, so `npm ci` then `./bin/run.js ...` works as README's quick start says.
// Only a finished build is run: scripts/build.mjs builds aside and moves dist/ into place with
// dist/build-complete in it, so a build cut off half-way, or one still running beside this run,
// is never taken for one (a missing module would be exit 70).
if (process.getBuiltinModule?.('node:fs').existsSync(new URL('../dist/build-complete', import.meta.url)) === false) {
  const {existsSync} = process.getBuiltinModule('node:fs')
  const {fileURLToPath} = process.getBuiltinModule('node:url')
  const root = fileURLToPath(new URL('..', import.meta.url))
  if (!existsSync(new URL('../node_modules/typescript/bin/tsc', import.meta.url))) {
    process.stderr.write(`unipay: ${root} is a clone without its dependencies: run \`npm ci\` there first\n`)
    process.exit(2)
  }
  process.stderr.write(`unipay: building this clone once (npm run build), a few seconds\n`)
  const build = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))
  const built = process.getBuiltinModule('node:child_process').spawnSync(process.execPath, [build, '--keep-complete'], {cwd: root, stdio: ['ignore', 2, 2]})
  if (built.status !== 0) {
    process.stderr.write(`unipay: the build failed (above); \`npm run build\` in ${root} shows it again\n`)
    process.exit(2)
  }
}

process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'
const {run} = await import('@oclif/core/run')
const {flush} = await import('@oclif/core/flush')
const {settings} = await import('@oclif/core/settings')

// The built CLI always runs compiled code, whatever NODE_ENV says (bin/dev.js runs the sources).
settings.enableAutoTranspile = false
// oclif's execute(), but an error outside every command (a plugin's, a hook's) that is not
// oclif's own is a bug: exit 70, not oclif's 1 (dist/cli/uncaught.js).
await run(process.argv.slice(2), import.meta.url)
  .then(() => flush())
  .catch(async (error) => (await import('../dist/cli/uncaught.js')).handleUncaught(error))
