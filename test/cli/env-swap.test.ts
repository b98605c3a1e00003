// Files share a worker (isolate: false): the environment an in-process run swaps in must not
// outlive the file, even when a test's timeout cut the run off.
import {expect, it} from 'vitest'
import {restoreEnv, withEnv} from '../helpers/env.js'

it('a run cut off is swapped out at the end of the file, and its late end changes nothing', async () => {
  const outside = process.env
  let finish!: () => void
  const cutOff = withEnv({HOME: '/cut-off'}, () => new Promise<void>((resolve) => (finish = resolve)))
  expect(process.env.HOME).toBe('/cut-off')
  restoreEnv() // what test/setup.ts does after every file
  expect(process.env).toBe(outside)

  await withEnv({HOME: '/next'}, async () => expect(process.env.HOME).toBe('/next'))
  expect(process.env).toBe(outside)

  // the cut-off run ends in the middle of a later one: the later one keeps its environment
  const later = withEnv({HOME: '/later'}, async () => {
    finish()
    await cutOff
    return process.env.HOME
  })
  expect(await later).toBe('/later')
  expect(process.env).toBe(outside)
})
