// Runs in every test file. Files share a worker and its modules (isolate: false), so what one
// file leaves behind in the process must not reach the next.
import {afterAll} from 'vitest'
import {restoreEnv} from './helpers/env.js'

afterAll(() => restoreEnv())
