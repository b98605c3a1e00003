// The architecture's import rules, checked on every `npm test` by `npm run layers`. The edges
// between parts of src/ are an allow-list, written in layers.cjs: an import between parts that is
// not listed there is an error (docs/ARCHITECTURE.md, "Layers", says what layers.cjs says).
const {allowed} = require('./layers.cjs')

/** A path pattern for a part of src/: a folder, or a file at its top. */
const partPath = (part) => (part.endsWith('.ts') ? `^src/${part.replace(/\./g, '\\.')}$` : `^src/${part}/`)

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  allowed: [
    {
      comment: 'Outside src/: packages and Node\'s own modules (the protocol\'s are limited below).',
      from: {path: '^src/'},
      to: {pathNot: '^src/'},
    },
    ...Object.entries(allowed).flatMap(([from, targets]) => [
      {comment: `${from} imports itself`, from: {path: partPath(from)}, to: {path: partPath(from)}},
      ...targets.map((target) =>
        typeof target === 'string'
          ? {comment: `${from} -> ${target}`, from: {path: partPath(from)}, to: {path: partPath(target)}}
          : {comment: `${from} -> ${target.part} (types only)`, from: {path: partPath(from)}, to: {path: partPath(target.part), dependencyTypes: ['type-only']}},
      ),
    ]),
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'protocol-is-pure',
      comment: 'The protocol layer is pure: Node built-ins, lossless-json, and itself (no zod: every signed call loads the field rules).',
      severity: 'error',
      from: {path: '^src/protocol/'},
      to: {pathNot: '^(src/protocol/|node_modules/lossless-json/)', dependencyTypesNot: ['core']},
    },
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports, type-only ones included: a cycle ties modules that should be read in order.',
      severity: 'error',
      from: {path: '^src/'},
      to: {circular: true},
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
