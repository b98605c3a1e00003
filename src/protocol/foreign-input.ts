// Other people's bytes (protocol-notes section 1): the string to sign flattens nested keys with
// `.` and `[i]` and signs UTF-8, so a body whose keys carry those characters, or whose strings
// hold a lone UTF-16 surrogate, can share its signature with a different body. Both sides refuse
// such input before anything else is done with it: the sandbox a request (10506), the CLI an
// answer or a callback (exit 3, not verified).
import {canonicalString, keyOf, scalarText, stringToSignOf, type Pair} from './canonical.js'
import {isLosslessNumber, parseJsonObject, PROTO_KEY_REFUSED, type JsonObject, type JsonReader, type JsonValue} from './json.js'

interface ForeignProblem {
  /** Where, in the flattened key's words (`data.details[0]`). */
  field: string
  message: string
}

const FLATTENING_CHARACTERS = /[.[\]]/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const shown = (key: string) => JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}...` : key)

const FLAT_DATA = "a system callback's data is flat: an object of scalar values"

/**
 * The first thing in a received JSON object that would make its string to sign ambiguous, or
 * undefined. `flatData`: a `system` callback, whose `data` is flat by design (section 5): there
 * keys may hold `.`, `[` and `]`, and values must be scalars.
 */
export function foreignInputProblem(body: JsonObject, options: {flatData?: boolean} = {}): ForeignProblem | undefined {
  // Containers are looked into from an explicit stack (a deep body costs no deep recursion), each
  // noted with its parent's note and its key or index: a path is written out only for the
  // problem found, so a megabyte of empty arrays nested 500 deep costs no strings at all.
  const containers: JsonValue[] = []
  const parentOf: number[] = []
  const keyOf: (string | number)[] = []
  const pending: number[] = []
  const note = (value: JsonValue, parent: number, key: string | number) => {
    containers.push(value)
    parentOf.push(parent)
    keyOf.push(key)
    return containers.length - 1
  }
  const pathOf = (parent: number, key: string | number): string => {
    const keys = [key]
    for (let at = parent; at !== -1; at = parentOf[at]) keys.push(keyOf[at])
    let path = String(keys.pop())
    while (keys.length > 0) {
      const next = keys.pop()!
      path += typeof next === 'number' ? `[${next}]` : `.${next}`
    }
    return path
  }
  const keys = Object.keys(body)
  for (const key of keys) {
    const message = keyProblem(key, false)
    if (message) return {field: key, message}
  }
  for (const key of keys) {
    const value = body[key]
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return {field: key, message: SURROGATE_IN_VALUE}
    } else if (isContainer(value)) {
      if (options.flatData === true && key === 'data') {
        const problem = flatDataProblem(value)
        if (problem) return problem
      } else pending.push(note(value, -1, key))
    }
  }
  while (pending.length > 0) {
    const at = pending.pop()!
    const value = containers[at]
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const item = value[index]
        if (typeof item === 'string') {
          if (LONE_SURROGATE.test(item)) return {field: pathOf(at, index), message: SURROGATE_IN_VALUE}
        } else if (isContainer(item)) pending.push(note(item, at, index))
      }
      continue
    }
    for (const key of Object.keys(value as JsonObject)) {
      const message = keyProblem(key, false)
      if (message) return {field: pathOf(at, key), message}
      const item = (value as JsonObject)[key]
      if (typeof item === 'string') {
        if (LONE_SURROGATE.test(item)) return {field: pathOf(at, key), message: SURROGATE_IN_VALUE}
      } else if (isContainer(item)) pending.push(note(item, at, key))
    }
  }
  return undefined
}

const SURROGATE_IN_VALUE = 'holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry: refused'

const isContainer = (value: JsonValue): value is JsonValue[] | JsonObject => value !== null && typeof value === 'object' && !isLosslessNumber(value)

/** A `system` callback's data: an object whose values are scalars, its keys free to hold `.`, `[` and `]`. */
function flatDataProblem(data: JsonValue[] | JsonObject): ForeignProblem | undefined {
  if (Array.isArray(data)) return {field: 'data', message: FLAT_DATA}
  for (const key of Object.keys(data)) {
    const field = `data.${key}`
    const message = keyProblem(key, true)
    if (message) return {field, message}
    const item = data[key]
    if (isContainer(item)) return {field, message: FLAT_DATA}
    if (typeof item === 'string' && LONE_SURROGATE.test(item)) return {field, message: SURROGATE_IN_VALUE}
  }
  return undefined
}

function keyProblem(key: string, flat: boolean): string | undefined {
  if (LONE_SURROGATE.test(key)) return 'the key holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry: refused'
  if (key === '__proto__') return PROTO_KEY_REFUSED
  if (!flat && FLATTENING_CHARACTERS.test(key)) return `the key ${shown(key)} holds ".", "[" or "]": it would flatten like a nested field into the same string to sign`
  return undefined
}

/** A request as the sandbox reads it: the body, what would make its string to sign ambiguous, and that string. */
interface ReceivedBody {
  body: JsonObject
  foreign?: ForeignProblem
  /** Over every field received but `sign`, as canonicalString has it. */
  stringToSign: string
}

/**
 * Reads a received body in one pass: foreignInputProblem's checks and the string to sign are made
 * as the parser meets each name and scalar, so a megabyte of nested empty arrays costs one parse,
 * not a parse and two walks. Throws what parseJsonObject throws.
 */
export function readReceivedBody(text: string): ReceivedBody {
  let foreign: ForeignProblem | undefined
  const pairs: Pair[] = []
  const reader: JsonReader = {
    key(path, length) {
      const message = foreign ? undefined : keyProblem(path[length - 1] as string, false)
      if (message) foreign = {field: keyOf(path, length), message}
    },
    scalar(value, path, length) {
      if (typeof value === 'string' && !foreign && LONE_SURROGATE.test(value)) foreign = {field: keyOf(path, length), message: SURROGATE_IN_VALUE}
      const top = path[0] as string
      if (length > 0 && !(top.length === 4 && top.toLowerCase() === 'sign')) pairs.push([keyOf(path, length), scalarText(value)!])
    },
  }
  const body = parseJsonObject(text, reader)
  let stringToSign = stringToSignOf(pairs)
  // two fields flattened to one key (`{"": {"a": 1}, "a": 2}`) are ordered as canonicalString's walk has them
  if (pairs.some((pair, index) => index > 0 && pair[0] === pairs[index - 1][0])) stringToSign = canonicalString(body)
  return {body, foreign, stringToSign}
}
