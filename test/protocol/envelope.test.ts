// The code of an answer, read the way unsigned readers decide success: only a number (or an
// integer written as a string, as PHP platforms send it) is a code.
import {describe, expect, it} from 'vitest'
import {resultCode} from '../../src/protocol/envelope.js'
import {parseJsonObject} from '../../src/protocol/json.js'

describe('resultCode', () => {
  it.each([
    ['{"code":0}', 0],
    ['{"code":1}', 1],
    ['{"code":-1}', -1],
    ['{"code":20041}', 20041],
    ['{"code":"0"}', 0],
    ['{"code":"1"}', 1],
    ['{"code":"-1"}', -1],
  ])('%s is code %d', (text, code) => {
    expect(resultCode(parseJsonObject(text))).toBe(code)
  })

  it.each(['{}', '{"code":null}', '{"code":""}', '{"code":" "}', '{"code":[]}', '{"code":[0]}', '{"code":{}}', '{"code":false}', '{"code":true}', '{"code":"0x0"}', '{"code":"success"}'])(
    '%s has no code (never read as 0, success)',
    (text) => {
      expect(resultCode(parseJsonObject(text))).toBeNaN()
    },
  )
})
