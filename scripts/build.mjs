#!/usr/bin/env node
// Builds dist/ from src/ (tsc -p tsconfig.build.json) in a folder beside it, and moves that into
// place only once it is whole, with a file that says so in it (dist/build-complete). bin/run.js
// runs a dist/ only with that file: a build cut off half-way (Ctrl-C, a kill, a full disk) or two
// first runs of a clone at once never leave a dist/ that a later run takes for a build (a missing
// module, exit 70). Building afresh also leaves no output of a source that is gone.
//
// Usage: node scripts/build.mjs [--keep-complete]
//   --keep-complete  a finished dist/ that another build moved into place meanwhile stays, and
//                    this build is dropped (a clone's first run: a command may be running from
//                    that dist/); without it, this build replaces whatever dist/ holds.
// Exits with tsc's status when src/ does not compile (tsc's report on stdout); dist/ is untouched.
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The file a finished build holds (bin/run.js looks for this name too). */
export const STAMP = 'build-complete'
const PARTIAL = 'dist.partial-'

const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/**
 * Builds `root`/dist as above. Returns tsc's status, and its report when `output` is 'pipe'
 * (else it goes to this process's stdout).
 */
export function build(root, {keepComplete = false, output = 'inherit'} = {}) {
  const dist = join(root, 'dist')
  // what builds cut off before left (their process is gone); another build may be clearing it too
  for (const name of readdirSync(root)) {
    if (!name.startsWith(PARTIAL) || alive(Number.parseInt(name.slice(PARTIAL.length), 10))) continue
    try {
      rmSync(join(root, name), {recursive: true, force: true})
    } catch {}
  }
  const aside = join(root, `${PARTIAL}${process.pid}`)
  rmSync(aside, {recursive: true, force: true})
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noEmitOnError', '--outDir', aside], {cwd: root, stdio: ['ignore', output, output], encoding: 'utf8'})
  const report = `${compiled.stdout ?? ''}${compiled.stderr ?? ''}`
  if (compiled.status !== 0) {
    rmSync(aside, {recursive: true, force: true})
    return {status: compiled.status ?? 1, report}
  }
  writeFileSync(join(aside, STAMP), 'A whole build of src/ (scripts/build.mjs): bin/run.js runs a dist/ only with this file in it.\n')
  for (let attempt = 1; ; attempt++) {
    try {
      // a rename onto a folder that exists fails: nothing ever writes into a dist/ in use
      renameSync(aside, dist)
      return {status: 0, report}
    } catch (error) {
      // another build may put its dist/ there between our two renames: a few tries, then give up
      if (!['EEXIST', 'ENOTEMPTY', 'EPERM', 'EACCES'].includes(error.code) || attempt === 5) throw error
    }
    if (keepComplete && existsSync(join(dist, STAMP))) {
      rmSync(aside, {recursive: true, force: true})
      return {status: 0, report}
    }
    // the dist/ there is an older build or a half one: out of the way first, then removed
    const old = `${aside}-old`
    try {
      renameSync(dist, old)
    } catch (error) {
      if (error.code !== 'ENOENT') throw error
    }
    rmSync(old, {recursive: true, force: true})
  }
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  process.exitCode = build(fileURLToPath(new URL('..', import.meta.url)), {keepComplete: process.argv.includes('--keep-complete')}).status
}
