// The sandbox reads a request in one pass (readReceivedBody): the body, its foreign input and its
// string to sign as the parser meets each name and scalar. It must say what the separate rules
// say: canonicalString over the parsed body, and foreignInputProblem over it.
import {describe, expect, it} from 'vitest'
import {canonicalString} from '../../src/protocol/canonical.js'
import {foreignInputProblem, readReceivedBody} from '../../src/protocol/foreign-input.js'
import {parseJsonObject} from '../../src/protocol/json.js'
import {generate, random} from '../helpers/json-texts.js'

function agrees(text: string, label: string): void {
  const read = readReceivedBody(text)
  const body = parseJsonObject(text)
  expect(read.body, label).toEqual(body)
  expect(read.stringToSign, label).toBe(canonicalString(body))
  // the first problem in the text's order, where the walk may meet another one first
  expect(read.foreign === undefined, label).toBe(foreignInputProblem(body) === undefined)
}

describe('readReceivedBody', () => {
  it('gives the string to sign canonicalString gives, and finds foreign input where foreignInputProblem does, for 1,000 generated bodies', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const next = random(seed)
      const text = `{"sign":${generate(next, 3)},"a":${generate(next, 0)},"":${generate(next, 1)},"Sign":"x","b":${generate(next, 0)}}`
      agrees(text, `seed ${seed}: ${text}`)
    }
  })

  it('tells a key repeated with the same value once, leaves out a top-level sign in any case with what is under it, and skips nulls', () => {
    const text = '{"b":{"x":[1,2]},"a":1,"b":{"x":[1,2]},"SIGN":{"k":"v"},"sign":"s","c":null,"d":[null,{"e":null,"f":true}]}'
    const read = readReceivedBody(text)
    expect(read.stringToSign).toBe('a=1&b.x[0]=1&b.x[1]=2&d[1].f=true')
    expect(read.stringToSign).toBe(canonicalString(parseJsonObject(text)))
  })

  it('orders two fields that flatten to one key as canonicalString does ("" joins without a dot)', () => {
    for (const text of ['{"":{"5":1},"5":0}', '{"5":0,"":{"5":1}}', '{"":{"a":2},"a":1,"b":3}']) agrees(text, text)
  })

  it('names the field of the first foreign key or string in the text', () => {
    expect(readReceivedBody('{"a":[{"ok":1},{"b.c":2}]}').foreign).toEqual({field: 'a[1].b.c', message: 'the key "b.c" holds ".", "[" or "]": it would flatten like a nested field into the same string to sign'})
    expect(readReceivedBody('{"a":{"b":["x","\\ud800"]}}').foreign).toEqual({field: 'a.b[1]', message: 'holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry: refused'})
    expect(readReceivedBody('{"a":1,"__proto__":{"amount":1}}').foreign?.field).toBe('__proto__')
  })
})

describe('foreignInputProblem', () => {
  it('names where the problem is, under 500 levels of arrays', () => {
    const text = `{"x":[${'['.repeat(499)}{"k[":1}${']'.repeat(499)}]}`
    expect(foreignInputProblem(parseJsonObject(text))?.field).toBe(`x${'[0]'.repeat(500)}.k[`)
  })
})
