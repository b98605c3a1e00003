// Generated JSON texts for the parser's tests: strings with escapes, surrogates, control
// characters and the flattening characters, number literals of every form, nesting.

/** A small deterministic generator (mulberry32), so a failure names a seed that repeats it. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PIECES = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\u0001', '\u001f', '中', '€', '\ud83d\ude00', '\ud800', '\udc00', 'é', '&', '=', '.', '[', '__proto__']
const NUMBERS = ['0', '-0', '1', '-1', '12.50', '1990000000000000001', '0.1', '1e3', '1E-7', '-2.500e+2', '100.0', '9007199254740993']
const WHITE = ['', ' ', '\n', '\t', '\r\n  ']

export function generate(next: () => number, depth: number): string {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]
  const ws = () => pick(WHITE)
  const kind = depth > 4 ? Math.floor(next() * 4) : Math.floor(next() * 6)
  switch (kind) {
    case 0: {
      const text = Array.from({length: Math.floor(next() * 5)}, () => pick(PIECES)).join('')
      // JSON.stringify escapes as a sender would; some senders escape more (\u00e9, \/)
      return next() < 0.5 ? JSON.stringify(text) : JSON.stringify(text).replace(/é/g, '\\u00e9').replace(/\//g, '\\/')
    }
    case 1:
      return pick(NUMBERS)
    case 2:
      return pick(['true', 'false', 'null'])
    case 3:
      return pick(['"reqId"', '"12.50"', '""'])
    case 4:
      return `[${ws()}${Array.from({length: Math.floor(next() * 4)}, () => `${ws()}${generate(next, depth + 1)}${ws()}`).join(',')}]`
    default: {
      const keys = [...new Set(Array.from({length: Math.floor(next() * 4)}, () => JSON.stringify(pick(PIECES) + pick(PIECES))))]
      return `{${ws()}${keys.map((key) => `${ws()}${key}${ws()}:${ws()}${generate(next, depth + 1)}${ws()}`).join(',')}}`
    }
  }
}
