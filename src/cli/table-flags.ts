// Flags of every command that prints a list: choose the columns, or show them all.
import {displayWidth, terminalWidth, type TableOptions} from '../output/table.js'
import {Flags} from './base.js'

export const tableFlags = {
  columns: Flags.string({description: 'columns to show, comma-separated, in this order (e.g. refundNo,amount,status)', helpGroup: 'TABLE'}),
  wide: Flags.boolean({description: 'show every column in full, even wider than the terminal', helpGroup: 'TABLE'}),
}

/** Table options from the flags; columns left out to fit the terminal are named on stderr. */
export function tableOptions(flags: {columns?: string; wide?: boolean}, notice: (message: string) => void, importance?: string[]): TableOptions {
  return {
    columns: flags.columns?.split(',').map((name) => name.trim()).filter(Boolean),
    wide: flags.wide,
    importance,
    onHidden: (hidden) => notice(hiddenNotice(hidden, terminalWidth())),
  }
}

/** "left out to fit: a, b and 12 more (--wide, or --columns)", on one line of the terminal. */
function hiddenNotice(hidden: string[], width: number): string {
  const tail = ' (--wide, or --columns)'
  for (let named = hidden.length; named > 0; named--) {
    const rest = hidden.length - named
    const text = `left out to fit: ${hidden.slice(0, named).join(', ')}${rest ? ` and ${rest} more` : ''}${tail}`
    if (displayWidth(text) <= width) return text
  }
  return `left out to fit: ${hidden.length} columns${tail}`
}
