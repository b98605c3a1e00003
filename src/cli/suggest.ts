// What a mistyped command or flag most likely meant, by edit distance over its words.

function distance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/** The closest candidate ("pay create" for "pay creat"), or undefined when none is close. */
export function closest(typed: string, candidates: string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const d = distance(typed, candidate)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  // Close means a slip of the fingers: a third of the length, at least two edits.
  return bestDistance <= Math.max(2, Math.floor(typed.length / 3)) ? best : undefined
}

/** oclif's "Nonexistent flag: --titel" with the closest flag of the command: "(did you mean --title?)". */
export function suggestFlags(message: string, flags: string[]): string {
  return message.replace(/^(Nonexistent flags?: )(.+)$/m, (_, head: string, list: string) =>
    head + list.split(', ').map((typed) => {
      const name = typed.replace(/^-+/, '').replace(/=.*$/, '')
      const found = closest(name, flags)
      return found ? `${typed} (did you mean --${found}?)` : typed
    }).join(', '))
}
