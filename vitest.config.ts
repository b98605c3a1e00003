import {configDefaults, defineConfig} from 'vitest/config'

// The slow layer: files that spend most of their time in other processes (bin/run.js runs one
// after another, kill -9, oclif's own tools, npm) or in a browser. Every other file is in the
// fast layer, which CI also runs on the Node versions it does not run the whole suite on
// (`UNIPAY_TEST_LAYER=fast`, `npm run test:fast`). A new file is fast unless it is listed here:
// list it when most of its tests wait on subprocesses or a browser.
export const SLOW_FILES = [
  'test/browser/*.test.ts',
  'test/cli/autocomplete.test.ts',
  'test/cli/batch-cron.test.ts',
  'test/cli/batch-kill.test.ts',
  'test/cli/batch-large.test.ts',
  'test/cli/clone.test.ts',
  'test/cli/docs.test.ts',
  'test/cli/finance-guide.test.ts',
  'test/cli/manifest.test.ts',
  'test/cli/package.test.ts',
  'test/cli/reconcile-kill.test.ts',
  'test/cli/screens.test.ts',
  'test/cli/startup.test.ts',
]

const layer = process.env.UNIPAY_TEST_LAYER
if (layer !== undefined && layer !== 'fast') throw new Error(`UNIPAY_TEST_LAYER: ${layer} is not a layer (fast, or unset for all)`)

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(layer === 'fast' ? SLOW_FILES : [])],
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    pool: 'forks',
    // Most test time is waiting (sandbox clocks, HTTP, the browser), not CPU: on a 2-core machine
    // vitest's default of one worker would run the files one after another.
    maxWorkers: 3,
    // Files share a worker's loaded modules (oclif, the commands, the sandbox) instead of each
    // loading them again: about 30 s of imports in a full run. Tests keep their state in their
    // own CLI folders and sandboxes; the one module state shared, the environment that
    // test/helpers/cli.ts swaps in around an in-process run, is put back at the end of every
    // file (test/setup.ts), even when a run was cut off by a timeout.
    isolate: false,
    // Timeouts measure nothing (speed is measured by \`npm run bench\`): they only end a test that
    // hangs, and leave room for a machine five times slower than usual (a busy CI runner, or two
    // copies of the suite side by side). Waits inside tests wait on events (helpers/sandbox.ts
    // waitFor), with a shorter deadline that says what never came.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // expect.poll waits on a state (a page's, mostly) as waitFor does: its default of 1 s is a speed limit
    expect: {poll: {timeout: 60_000}},
    reporters: ['default', './test/summary-reporter.ts'],
  },
})
