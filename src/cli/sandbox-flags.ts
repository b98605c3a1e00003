// The flag every `sandbox` command takes to reach the sandbox a user started elsewhere
// (`sandbox start --foreground --data-dir D`), and the sandbox a command's flags name.
import {locateSandbox, SANDBOX_DIR_ENV} from '../local-sandbox/location.js'
import type {SandboxUse} from '../services/sandbox.js'
import {Flags} from './base.js'

export const sandboxFlags = {
  'data-dir': Flags.directory({
    description: `the sandbox's data folder, as given to \`sandbox start --data-dir\` (default: ${SANDBOX_DIR_ENV}, else the CLI data folder)`,
    helpGroup: 'SANDBOX',
  }),
}

/** The sandbox a command uses: `--data-dir`, else UNIPAY_SANDBOX_DIR, else `home` (the CLI's data folder). */
export function sandboxUse(flags: {'data-dir'?: string}, home: string, notice: (message: string) => void): SandboxUse {
  return {location: locateSandbox(home, flags['data-dir']), notice}
}
