// Other people's bytes (protocol-notes section 1): the string to sign flattens nested keys with
// `.` and `[i]` and signs UTF-8, so a body whose keys carry those characters, or whose strings
// hold a lone UTF-16 surrogate, can share its signature with a different body. Both sides refuse
// such input before anything else is done with it: the sandbox a request (10506), the CLI an
// answer or a callback (exit 3, not verified).
import {isLosslessNumber, PROTO_KEY_REFUSED, type JsonObject, type JsonValue} from './json.js'

interface ForeignProblem {
  /** Where, in the flattened key's words (`data.details[0]`). */
  field: string
  message: string
}

const FLATTENING_CHARACTERS = /[.[\]]/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const shown = (key: string) => JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}...` : key)

/**
 * The first thing in a received JSON object that would make its string to sign ambiguous, or
 * undefined. `flatData`: a `system` callback, whose `data` is flat by design (section 5): there
 * keys may hold `.`, `[` and `]`, and values must be scalars.
 */
export function foreignInputProblem(body: JsonObject, options: {flatData?: boolean} = {}): ForeignProblem | undefined {
  // an explicit stack: a deeply nested body must not cost a deep recursion; strings are looked at
  // where they are met, so a flat body puts nothing on it
  const stack: {value: JsonValue; path: string; flat?: boolean}[] = []
  const keys = Object.keys(body)
  for (const key of keys) {
    const problem = keyProblem(key, key, false)
    if (problem) return problem
  }
  for (const key of keys) {
    const problem = valueProblem(body[key], key, stack, options.flatData === true && key === 'data')
    if (problem) return problem
  }
  while (stack.length > 0) {
    const {value, path, flat} = stack.pop()!
    if (Array.isArray(value)) {
      if (flat) return {field: path, message: "a system callback's data is flat: an object of scalar values"}
      for (let index = 0; index < value.length; index++) {
        const problem = valueProblem(value[index], `${path}[${index}]`, stack)
        if (problem) return problem
      }
      continue
    }
    for (const key of Object.keys(value as JsonObject)) {
      const item = (value as JsonObject)[key]
      const field = `${path}.${key}`
      const problem = keyProblem(key, field, flat === true)
      if (problem) return problem
      if (flat && item !== null && typeof item === 'object' && !isLosslessNumber(item)) {
        return {field, message: "a system callback's data is flat: an object of scalar values"}
      }
      const inner = valueProblem(item, field, stack)
      if (inner) return inner
    }
  }
  return undefined
}

/** A string's problem at once; an array or object goes on the stack to be looked into. */
function valueProblem(value: JsonValue, path: string, stack: {value: JsonValue; path: string; flat?: boolean}[], flat?: boolean): ForeignProblem | undefined {
  if (typeof value === 'string') {
    return LONE_SURROGATE.test(value) ? {field: path, message: 'holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry: refused'} : undefined
  }
  if (value !== null && typeof value === 'object' && !isLosslessNumber(value)) stack.push(flat ? {value, path, flat} : {value, path})
  return undefined
}

function keyProblem(key: string, field: string, flat: boolean): ForeignProblem | undefined {
  if (LONE_SURROGATE.test(key)) return {field, message: 'the key holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry: refused'}
  if (key === '__proto__') return {field, message: PROTO_KEY_REFUSED}
  if (!flat && FLATTENING_CHARACTERS.test(key)) {
    return {field, message: `the key ${shown(key)} holds ".", "[" or "]": it would flatten like a nested field into the same string to sign`}
  }
  return undefined
}
