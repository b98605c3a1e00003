// The command reference in docs/commands (and README's command list) is what `npm run docs`
// writes from the built commands: a flag or description changed without regenerating fails here.
import {execFileSync} from 'node:child_process'
import {copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {privateFolders} from '../helpers/env.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const between = (text: string) => text.slice(text.indexOf('<!-- commands -->'), text.indexOf('<!-- commandsstop -->'))

describe('docs/commands', () => {
  it('is current: regenerating it from the built commands changes nothing (run `npm run docs`)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-docs-'))
    try {
      for (const file of ['package.json', 'README.md']) copyFileSync(join(root, file), join(dir, file))
      cpSync(join(root, 'dist'), join(dir, 'dist'), {recursive: true})
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
      execFileSync(process.execPath, [join(root, 'node_modules/oclif/bin/run.js'), 'readme', '--multi', '--output-dir', 'docs/commands', '--no-aliases', '--no-source-links'], {
        cwd: dir,
        stdio: 'pipe',
        // folders of its own: oclif caches into the user's (~/.cache/oclif)
        env: {...process.env, NODE_ENV: 'production', ...privateFolders(dir)},
      })
      const fresh = join(dir, 'docs/commands')
      const committed = join(root, 'docs/commands')
      expect(readdirSync(committed).sort()).toEqual(readdirSync(fresh).sort())
      for (const name of readdirSync(fresh)) {
        expect(readFileSync(join(committed, name), 'utf8'), name).toBe(readFileSync(join(fresh, name), 'utf8'))
      }
      expect(between(readFileSync(join(root, 'README.md'), 'utf8'))).toBe(between(readFileSync(join(dir, 'README.md'), 'utf8')))
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
