import {BaseCommand} from '../../../cli/base.js'
import {sandboxFlags, sandboxUse} from '../../../cli/sandbox-flags.js'
import {display} from '../../../output/format.js'
import {renderRows} from '../../../output/table.js'
import type {FaultRule} from '../../../protocol/local-sandbox.js'
import {listFaults} from '../../../services/sandbox.js'

/** The faults still armed. */
export type SandboxFaultsListResult = FaultRule[]

export default class SandboxFaultsList extends BaseCommand {
  static summary = 'List the faults still armed in the local sandbox'
  static examples = ['<%= config.bin %> sandbox faults list']
  static flags = {...sandboxFlags}

  async run(): Promise<SandboxFaultsListResult> {
    const {flags} = await this.parse(SandboxFaultsList)
    const rules = await listFaults(sandboxUse(flags, this.config.dataDir, (m) => this.notice(m)))
    return this.emit(rules, () =>
      this.io.out(
        renderRows(
          ['fault', 'calls left', 'path', 'latency (ms)'],
          rules.map((r) => [display(r.fault), display(r.remaining), display(r.path ?? 'any /unipay/*'), r.fault === 'latency' ? display(r.latencyMs) : '']),
          this.io.stdoutTty,
        ),
      ),
    )
  }
}
