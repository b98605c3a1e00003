// Preloaded with `node --import` by test/cli/startup.test.ts: writes every module a run loaded
// to $UNIPAY_LOADED_MODULES, ES modules as the loader resolves them (hooks.mjs), CommonJS ones
// from the require cache at exit (Node 20 does not pass require() through the hooks).
import {appendFileSync} from 'node:fs'
import {createRequire, register} from 'node:module'

const file = process.env.UNIPAY_LOADED_MODULES
if (file) {
  register('./hooks.mjs', {parentURL: import.meta.url, data: {file}})
  const require = createRequire(import.meta.url)
  process.on('exit', () => appendFileSync(file, Object.keys(require.cache).map((path) => `${path}\n`).join('')))
}
