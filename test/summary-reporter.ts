// Prints one closing line, `N passed, N failed`, that CI reads (vitest's own summary is styled).
import type {Reporter, TestModule} from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0
    let failed = unhandledErrors.length
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`)
  }
}
