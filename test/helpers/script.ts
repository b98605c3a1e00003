// A guide's shell script run as a reader runs it: `unipay` on the PATH (this repo's built CLI),
// in a folder of the test's, with the test CLI's private environment.
import {spawn} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))

/** Runs `script` with `shell` (its options before `-c`) in `cwd`; `unipay` is found in `cwd`/bin. */
export function runScript(shell: string[], script: string, options: {cwd: string; env: NodeJS.ProcessEnv}): Promise<{code: number; stdout: string; stderr: string}> {
  const bin = join(options.cwd, 'bin')
  mkdirSync(bin, {recursive: true})
  writeFileSync(join(bin, 'unipay'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {mode: 0o755})
  return new Promise((resolve) => {
    const child = spawn(shell[0], [...shell.slice(1), '-c', script], {cwd: options.cwd, env: {...options.env, PATH: `${bin}:${process.env.PATH}`}})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    child.on('close', (code) => resolve({code: code ?? -1, stdout, stderr}))
  })
}
