#!/usr/bin/env node
// Start-up is most of a call's time, so only oclif's entry points are loaded here, not its
// index. The index checks oclif's own Node engine with semver (47 files) on every start; our
// package.json states the engine we need, so that check is switched off before anything loads.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'
const {execute} = await import('@oclif/core/execute')
const {settings} = await import('@oclif/core/settings')

// The built CLI always runs compiled code, whatever NODE_ENV says (bin/dev.js runs the sources).
settings.enableAutoTranspile = false
await execute({dir: import.meta.url})
