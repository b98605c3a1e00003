// oclif writes the manifest's commands in the order their files finished loading, which differs
// from run to run; sorted by id, `npm run manifest` (and `npm pack`) leaves a clone unchanged.
import {readFileSync, writeFileSync} from 'node:fs'

const file = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(readFileSync(file, 'utf8'))
manifest.commands = Object.fromEntries(Object.keys(manifest.commands).sort().map((id) => [id, manifest.commands[id]]))
writeFileSync(file, JSON.stringify(manifest, null, 2))
