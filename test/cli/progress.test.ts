// The batch progress bar writes messages above itself straight to stderr, past the command's
// printable output: a message carrying someone else's bytes must still reach the terminal inert.
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {progressBar} from '../../src/cli/batch.js'

describe('progress bar messages', () => {
  it('are made printable: an escape sequence in a message is shown, not obeyed', async () => {
    const stream = Object.assign(new PassThrough(), {isTTY: true, columns: 80, rows: 24}) as unknown as NodeJS.WriteStream
    let written = ''
    stream.on('data', (chunk: Buffer) => (written += chunk.toString()))
    const progress = await progressBar(stream)
    progress.start(2, 0)
    expect(progress.log('line 3: payeeName "\u001b]0;pwned\u0007\u202e" refused')).toBe(true)
    progress.stop()
    expect(written).toContain('line 3: payeeName "\\u001b]0;pwned\\u0007\\u202e" refused')
    expect(written).not.toContain('\u001b]0;pwned')
    expect(written).not.toContain('\u202e')
  })
})
