// The command a mistyped one most likely meant, by edit distance over its words.

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

/** The closest command ("pay create" for "pay creat"), or undefined when none is close. */
export function closestCommand(typed: string, commands: string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const command of commands) {
    const d = distance(typed, command)
    if (d < bestDistance) {
      best = command
      bestDistance = d
    }
  }
  // Close means a slip of the fingers: a third of the length, at least two edits.
  return bestDistance <= Math.max(2, Math.floor(typed.length / 3)) ? best : undefined
}
