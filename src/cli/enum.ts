// Enumerated flag values in the words the screens show: a table says "fail (failed)", so a
// filter takes `fail` or `failed`; anything else is refused with the values listed.
import {UsageError} from '../errors.js'
import {STATUS_WORDS} from '../protocol/enums.js'

const normal = (text: string) => text.trim().toLowerCase().replace(/[\s_-]+/g, ' ')

/** "fail (failed), close (closed)": the values as --help and error messages list them. */
export function describeValues(values: readonly string[]): string {
  return values.map((value) => (STATUS_WORDS[value] && STATUS_WORDS[value] !== value ? `${value} (${STATUS_WORDS[value]})` : value)).join(', ')
}

/** The platform's value for what the user typed: the value itself or its word on screen. */
export function enumValue(field: string, given: string, values: readonly string[]): string {
  const wanted = normal(given)
  const found = values.find((value) => normal(value) === wanted) ?? values.find((value) => STATUS_WORDS[value] && normal(STATUS_WORDS[value]) === wanted)
  if (found) return found
  throw new UsageError('invalid input', [{field, message: `"${given}" is not one of: ${describeValues(values)}`}])
}
