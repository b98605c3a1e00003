// A record of a story: what it is, the answer it came in (asks.ts), and the number it matched.
import type {JsonValue} from '../../protocol/json.js'
import type {Answered} from './asks.js'
import type {NumberKind} from './shapes.js'

/** What a record is: a payment order, a gateway order, a refund, a transfer, a split, a callback. */
export type RecordKind = 'payment' | 'gateway' | 'refund' | 'transfer' | 'alloc' | 'callback'

export interface StoryRecord extends Answered {
  kind: RecordKind
  /** As what the number asked matched this record. */
  matched?: NumberKind
}

/** A field of a record as text: a long number's literal, nothing for what is not a value. */
export const text = (value: JsonValue | undefined): string =>
  value === undefined || value === null ? '' : typeof value === 'object' && 'value' in value ? String(value.value) : typeof value === 'object' ? '' : String(value)
