// Exports of src/ that no other file uses (issue 29 point 10): `node scripts/unused-exports.mjs`
// lists them, one `file:line name` a line, and exits 1 when there are any. A use is a reference
// from another file of src/ or test/ (a test exercising a part of a module counts), found as an
// editor finds references (re-exports, dynamic imports and destructuring included). Not listed:
// commands' default classes (oclif loads them) and their result types (`export type
// NameResult`, which tests read: docs/ARCHITECTURE.md, "Adding a command"), and what bin/run.js
// takes from dist/ (`(await import('../dist/cli/uncaught.js')).handleUncaught`). About 20 s.
import {readFileSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import ts from 'typescript'

const root = resolve(import.meta.dirname, '..')
const {config} = ts.readConfigFile(resolve(root, 'tsconfig.json'), ts.sys.readFile)
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root)
const service = ts.createLanguageService(
  {
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: () => '0',
    getScriptSnapshot: (file) => (ts.sys.fileExists(file) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(file)) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  },
  ts.createDocumentRegistry(),
)
const program = service.getProgram()
/** `src/PATH.ts NAME` for every `(await import('../dist/PATH.js')).NAME` of bin/run.js. */
const bin = readFileSync(resolve(root, 'bin/run.js'), 'utf8')
const usedByBin = new Set([...bin.matchAll(/import\('\.\.\/dist\/([\w/.-]+)\.js'\)\)\.(\w+)/g)].map(([, path, name]) => `src/${path}.ts ${name}`))
const checker = program.getTypeChecker()

const unused = []
for (const file of program.getSourceFiles()) {
  const path = relative(root, file.fileName)
  if (!path.startsWith('src/')) continue
  const module = checker.getSymbolAtLocation(file)
  for (const symbol of module ? checker.getExportsOfModule(module) : []) {
    const declaration = symbol.declarations?.[0]
    // a re-export (an index) is counted at the module that declares it
    if (!declaration || declaration.getSourceFile() !== file || ts.isExportSpecifier(declaration)) continue
    if (path.startsWith('src/commands/') && (symbol.name === 'default' || symbol.name.endsWith('Result'))) continue
    if (path.startsWith('src/hooks/') && symbol.name === 'default') continue
    if (usedByBin.has(`${path} ${symbol.name}`)) continue
    const name = ts.getNameOfDeclaration(declaration) ?? declaration
    const references = (service.findReferences(file.fileName, name.getStart()) ?? []).flatMap((entry) => entry.references)
    if (references.some((reference) => relative(root, reference.fileName) !== path)) continue
    unused.push(`${path}:${file.getLineAndCharacterOfPosition(name.getStart()).line + 1} ${symbol.name}`)
  }
}
if (unused.length > 0) {
  console.log(unused.join('\n'))
  process.exitCode = 1
}
