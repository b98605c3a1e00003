// "Did you mean": the known word nearest to a mistyped one, by edit distance. One rule for
// commands and flags (cli/suggest.ts, the command-not-found hook) and batch file columns.

/** Levenshtein distance: insertions, deletions and substitutions, one row of the table kept. */
function distance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]
}

/**
 * The candidate closest to `typed` ("pay create" for "pay creat"), or undefined when none is
 * close: a slip of the fingers is at most a third of the typed length, and at least two edits.
 */
export function closest(typed: string, candidates: readonly string[], {ignoreCase = false} = {}): string | undefined {
  const fold = (word: string) => (ignoreCase ? word.toLowerCase() : word)
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const d = distance(fold(typed), fold(candidate))
    if (d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  return bestDistance <= Math.max(2, Math.floor(typed.length / 3)) ? best : undefined
}
