import {BaseCommand} from '../../../cli/base.js'
import {controlCall, ensureSandbox} from '../../../local-sandbox/control.js'
import {display} from '../../../output/format.js'
import {renderRows} from '../../../output/table.js'
import type {FaultRule} from '../../../protocol/local-sandbox.js'

/** The faults still armed. */
export type SandboxFaultsListResult = FaultRule[]

export default class SandboxFaultsList extends BaseCommand {
  static summary = 'List the faults still armed in the local sandbox'
  static examples = ['<%= config.bin %> sandbox faults list']

  async run(): Promise<SandboxFaultsListResult> {
    await this.parse(SandboxFaultsList)
    const {runtime} = await ensureSandbox(this.config.dataDir, {}, (m) => this.notice(m))
    const rules = await controlCall<FaultRule[]>(runtime, 'GET', 'faults')
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
