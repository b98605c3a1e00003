import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
})
