// The architecture's import rules as data: which part of src/ may import which. Nothing else
// may: .dependency-cruiser.cjs makes every edge not listed here an error of `npm run layers`
// (run by `npm test`), and docs/ARCHITECTURE.md's "Layers" table is written from this file
// (`node scripts/layers-doc.mjs`; test/architecture.test.ts fails when they differ). Every
// part may import itself and, except the protocol, packages and Node's own modules.

/** A part of src/: a folder, or a file at its top (errors.ts). */
const parts = {
  commands: 'one oclif class per command: parse flags, call one service, render',
  hooks: 'oclif hooks (an unknown command)',
  cli: 'the base command (global flags, run context, error -> exit code), input helpers, flags shared by commands',
  output: 'rendering: stdout data and stderr notices, tables, money and status words, payBody',
  services: 'one module per command family: take a client or a sandbox, return data, never print',
  client: 'the request pipeline: common fields, validate, sign, send, verify',
  profiles: 'the profile model, its store (0600) and resolution (flag > env > profile > default)',
  'local-sandbox': 'the sandbox process and its control client, found by its runtime.json, never by an import',
  protocol: 'pure: canonical string, JSON, keys, signatures, schemas, endpoints, money, time, durations',
  sandbox: 'the local platform: it shares the protocol with the client and nothing else',
  'errors.ts': 'one error class per exit code',
}

/**
 * The edges: `part: [what it may import]`. `{part, typesOnly: true}`: type imports only, which
 * cost nothing at run time.
 */
const allowed = {
  commands: ['cli', 'services', 'output', 'profiles', 'protocol', 'errors.ts'],
  hooks: ['cli', 'output', 'protocol', 'errors.ts'],
  cli: ['services', 'client', 'profiles', 'local-sandbox', 'output', 'protocol', 'errors.ts'],
  output: [{part: 'services', typesOnly: true}, 'protocol', 'errors.ts'],
  services: ['client', 'profiles', 'local-sandbox', 'protocol', 'errors.ts'],
  client: ['protocol', 'errors.ts'],
  profiles: ['local-sandbox', 'protocol', 'errors.ts'],
  'local-sandbox': ['protocol', 'errors.ts'],
  protocol: [],
  sandbox: ['protocol'],
  'errors.ts': [{part: 'protocol', typesOnly: true}],
}

module.exports = {parts, allowed}
