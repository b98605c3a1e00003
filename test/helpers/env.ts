// The environment an in-process command run sees, swapped in around the run. Kept apart from
// cli.ts so that test/setup.ts, which every file runs, loads nothing else.
import {join} from 'node:path'

/**
 * A HOME and XDG folders under `dir`, for any process a test starts: two copies of the suite
 * side by side (or a user's own unipay, oclif or browser) must not share one.
 */
export function privateFolders(dir: string): {HOME: string; XDG_CONFIG_HOME: string; XDG_DATA_HOME: string; XDG_CACHE_HOME: string} {
  return {HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache')}
}

// Commands read HOME, XDG_* and UNIPAY_* from process.env. Runs may overlap (a test awaiting
// several at once): the first to start swaps the environment in, the last to end restores it.
let envUsers = 0
let envOutside: NodeJS.ProcessEnv | undefined
// A run cut off by its test's timeout never ends: restoreEnv() ends its swap at the end of the
// file (test/setup.ts), and a run of an earlier generation no longer counts when it ends.
let envGeneration = 0

export async function withEnv<T>(env: NodeJS.ProcessEnv, body: () => Promise<T>): Promise<T> {
  if (envUsers++ === 0) envOutside = process.env
  const generation = envGeneration
  process.env = {...env}
  try {
    return await body()
  } finally {
    if (generation === envGeneration && --envUsers === 0) process.env = envOutside!
  }
}

/** Puts the real environment back if a run is still swapped in; files share a worker (isolate: false). */
export function restoreEnv(): void {
  if (envUsers === 0) return
  process.env = envOutside!
  envUsers = 0
  envGeneration++
}
