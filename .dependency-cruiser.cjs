// The architecture's import rules (docs/ARCHITECTURE.md), checked on every `npm test` by
// `npm run layers`. A rule here that the code breaks fails the build; change the doc and this
// file together.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'sandbox-imports-only-protocol',
      comment: 'The local sandbox plays the platform: it shares the protocol with the client and nothing else.',
      severity: 'error',
      from: {path: '^src/sandbox/'},
      to: {path: '^src/', pathNot: '^src/(sandbox|protocol)/'},
    },
    {
      name: 'protocol-is-pure',
      comment: 'The protocol layer is pure: Node built-ins, zod and lossless-json, and itself.',
      severity: 'error',
      from: {path: '^src/protocol/'},
      to: {pathNot: '^(src/protocol/|node_modules/(zod|lossless-json)/)', dependencyTypesNot: ['core']},
    },
    {
      name: 'only-the-sandbox-imports-the-sandbox',
      comment: 'Commands and everything else reach the sandbox over HTTP (src/local-sandbox finds it by its runtime.json).',
      severity: 'error',
      from: {path: '^src/', pathNot: '^src/sandbox/'},
      to: {path: '^src/sandbox/'},
    },
    {
      name: 'services-do-not-print',
      comment: 'Services return data; printing and exit codes belong to commands (output, cli).',
      severity: 'error',
      from: {path: '^src/(services|client|profiles)/'},
      to: {path: '^src/(output|cli|commands)/'},
    },
    {
      name: 'nothing-imports-commands',
      comment: 'Commands are the top layer: oclif loads them, nothing imports them.',
      severity: 'error',
      from: {path: '^src/', pathNot: '^src/commands/'},
      to: {path: '^src/commands/'},
    },
    {
      name: 'no-missing-modules',
      comment: 'Every import resolves (a typo or an undeclared package).',
      severity: 'error',
      from: {path: '^src/'},
      to: {couldNotResolve: true},
    },
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
    enhancedResolveOptions: {exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types']},
  },
}
