// Whatever a command prints passes through one Io that makes it printable: escape sequences
// from outside reach no terminal, on stdout or stderr, as text or as JSON.
import {describe, expect, it} from 'vitest'
import {Drawn, printableIo, type Sink} from '../../src/output/io.js'
import {printable} from '../../src/protocol/printable.js'

// What an attacker puts in a value: retitle the window, clear it, paint a fake green row, an
// 8-bit CSI, and a right-to-left override that reverses what follows.
const HOSTILE = 'pay\u001b]0;owned\u0007\u001b[2J\u001b[32mverified\u001b[0m\u009b31m\u202eevil'

function capture(): {sink: Sink; out: string[]; err: string[]} {
  const out: string[] = []
  const err: string[] = []
  return {sink: {out: (t) => out.push(t), err: (t) => err.push(t), stdoutTty: true, stdinTty: false}, out, err}
}

// eslint-disable-next-line no-control-regex -- what must never reach a terminal
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

describe('printable output', () => {
  it('shows every control character as a visible \\u escape, keeping line feeds and tabs', () => {
    expect(printable(HOSTILE)).toBe('pay\\u001b]0;owned\\u0007\\u001b[2J\\u001b[32mverified\\u001b[0m\\u009b31m\\u202eevil')
    expect(printable('a\tb\nc\r\n')).toBe('a\tb\nc\\u000d\n')
  })

  it('shows the line and paragraph separators and every bidi mark escaped, and keeps the joiners emoji are made of', () => {
    // U+2028 breaks a line in many terminals and editors where none is seen; U+061C, U+200E and
    // U+200F reorder what follows as the overrides do
    expect(printable('a\u2028b\u2029c\u061cd\u200ee\u200ff\u2066g\u2069')).toBe('a\\u2028b\\u2029c\\u061cd\\u200ee\\u200ff\\u2066g\\u2069')
    expect(printable('\u{1f468}\u200d\u{1f469}\u200d\u{1f467} \u200c')).toBe('\u{1f468}\u200d\u{1f469}\u200d\u{1f467} \u200c')
  })

  it('the Io makes stdout and stderr printable; only what the CLI drew itself passes as is', () => {
    const {sink, out, err} = capture()
    const io = printableIo(sink)
    io.out(`row ${HOSTILE}`)
    io.err(`Error: platform error 40001: ${HOSTILE}`)
    io.out(new Drawn('\u001b[47m QR \u001b[0m'))
    expect(out[0]).not.toMatch(RAW_CONTROL)
    expect(err[0]).not.toMatch(RAW_CONTROL)
    expect(err[0]).toContain('\\u001b]0;owned')
    expect(out[1]).toBe('\u001b[47m QR \u001b[0m')
  })

  it('JSON stays JSON with the same meaning (JSON escapes C0 itself; the rest become JSON escapes)', () => {
    const {sink, out} = capture()
    printableIo(sink).out(JSON.stringify({message: HOSTILE}, null, 2))
    expect(out[0]).not.toMatch(RAW_CONTROL)
    expect(JSON.parse(out[0])).toEqual({message: HOSTILE})
  })
})
