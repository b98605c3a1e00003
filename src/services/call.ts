// What every service call shares: its options, and for creates the business number generated
// when the user leaves it out and the hint when a create's outcome is unknown.
import {randomBytes} from 'node:crypto'
import {isKeyMismatch, SignatureError, TransportError} from '../errors.js'
import {compactGmt8} from '../protocol/time.js'

export interface CallOptions {
  dryRun?: boolean
}

export function generateBusinessNo(prefix: string, now = new Date()): string {
  return `${prefix}${compactGmt8(now)}${randomBytes(4).toString('hex').toUpperCase()}`
}

/**
 * A create whose answer was lost may have been carried out: say so, with the business number
 * to check it by. Never resend it with a new number on the user's behalf.
 */
export async function outcomeUnknownHint<T>(create: Promise<T>, key: string, value: unknown, check: string): Promise<T> {
  try {
    return await create
  } catch (error) {
    const command = `unipay ${check} ${String(value)}`
    const safe = `resending with the same ${key} is safe (it is the idempotency key); a new ${key} could act twice`
    if (error instanceof TransportError && error.outcomeUnknown) {
      error.message = `outcome unknown: ${error.message}`
      error.hint = `the platform may have carried it out. Check with: ${command}\n${safe}`
      error.details = {outcomeUnknown: true, [key]: value}
    } else if (error instanceof SignatureError) {
      // the answer cannot be believed, but the create may well have happened; with the wrong
      // key every answer fails the same way, so the key comes first (its hint: cli/hints.ts)
      error.hint = isKeyMismatch(error)
        ? `the platform may have carried it out, but no answer can be believed until the platform key is right; then check with: ${command}\n${safe}`
        : `the platform may have carried it out, but its answer cannot be believed. Check with: ${command}\n${safe}`
      error.details = {...error.details, outcomeUnknown: true, [key]: value}
    }
    throw error
  }
}
