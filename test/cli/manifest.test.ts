import {execFileSync} from 'node:child_process'
import {copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {privateFolders} from '../helpers/env.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('oclif.manifest.json', () => {
  it('is current: regenerating it from the built commands changes nothing (run `npm run manifest`)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unipay-manifest-'))
    try {
      copyFileSync(join(root, 'package.json'), join(dir, 'package.json'))
      cpSync(join(root, 'dist'), join(dir, 'dist'), {recursive: true})
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
      execFileSync(process.execPath, [join(root, 'node_modules/oclif/bin/run.js'), 'manifest', dir], {
        cwd: dir,
        stdio: 'pipe',
        // folders of its own: oclif caches into the user's (~/.cache/oclif)
        env: {...process.env, ...privateFolders(dir)},
      })
      const fresh = JSON.parse(readFileSync(join(dir, 'oclif.manifest.json'), 'utf8'))
      const committed = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
      expect(Object.keys(committed.commands).sort()).toEqual(Object.keys(fresh.commands).sort())
      expect(committed).toEqual(fresh)
      // sorted, as `npm run manifest` and `npm pack` write it: oclif's own order differs between runs
      expect(Object.keys(committed.commands)).toEqual(Object.keys(committed.commands).sort())
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
