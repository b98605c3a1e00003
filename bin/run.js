#!/usr/bin/env node
import {execute, settings} from '@oclif/core'

// The built CLI always runs compiled code, whatever NODE_ENV says (bin/dev.js runs the sources).
settings.enableAutoTranspile = false
await execute({dir: import.meta.url})
