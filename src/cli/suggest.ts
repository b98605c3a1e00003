// What a mistyped flag most likely meant (protocol/closest.ts holds the rule).
import {closest} from '../protocol/closest.js'

/** oclif's "Nonexistent flag: --titel" with the closest flag of the command: "(did you mean --title?)". */
export function suggestFlags(message: string, flags: string[]): string {
  return message.replace(/^(Nonexistent flags?: )(.+)$/m, (_, head: string, list: string) =>
    head + list.split(', ').map((typed) => {
      const name = typed.replace(/^-+/, '').replace(/=.*$/, '')
      const found = closest(name, flags)
      return found ? `${typed} (did you mean --${found}?)` : typed
    }).join(', '))
}
