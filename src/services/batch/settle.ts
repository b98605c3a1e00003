// One row on the platform: create it, and when its outcome is unknown (a timeout, an unsigned
// error, "already submitted") look it up before any resend; the run's health (files/walk.ts)
// stops the sending after an interruption or a run of transport failures.
import type {ClientConfig} from '../../client/pipeline.js'
import {PlatformError, SignatureError, TransportError} from '../../errors.js'
import {createTransfer, queryTransfer} from '../transfer.js'
import {sleep, type Health} from '../files/walk.js'
import type {Outcome, RowResult} from './journal.js'

const SEND_ATTEMPTS = 3

/** What the platform says of a row. */
type Settled = Omit<RowResult, 'index' | 'line' | 'bizTransferNo' | 'channel' | 'amount'>

/**
 * One row's outcome: create; when the outcome is unknown, query before any resend. `mayHaveLanded`:
 * this journal records the row as sent before, with no outcome.
 */
export async function settleRow(client: ClientConfig, fields: Record<string, unknown>, mayHaveLanded: boolean, health: Health): Promise<Settled | {outcome: 'not sent'; message: string}> {
  let checkFirst = mayHaveLanded
  // whether a send of this run (or of the run this journal records) may have created the row
  let sentBefore = mayHaveLanded
  let lastError = ''
  for (let attempt = 1; attempt <= SEND_ATTEMPTS; attempt++) {
    // once the run stops, a row not yet answered is left for --resume (its "sending" line stays)
    if (attempt > 1 && health.stopped) break
    if (checkFirst) {
      const found = await lookUp(client, fields, health)
      if (found === 'unreachable') {
        lastError = 'the platform could not be reached to check this row'
        await pause(attempt)
        continue
      }
      if (found) return sameRow(found, fields)
    }
    try {
      const created = await createTransfer(client, fields)
      health.answered()
      const data = (created.response?.body.data ?? {}) as Record<string, unknown>
      return {outcome: data.status === 'success' ? 'success' : 'processing', transferNo: String(data.transferNo ?? '')}
    } catch (error) {
      if (!(error instanceof TransportError)) health.answered()
      if (error instanceof PlatformError && error.code === 10507) {
        const found = await lookUp(client, fields, health)
        if (found && found !== 'unreachable') {
          // submitted by a run this journal does not know (its journal moved away, or the same
          // content elsewhere): this run paid nothing, and says so
          if (!sentBefore) {
            const was = `${found.outcome}${found.transferNo ? ` ${found.transferNo}` : ''}`
            return {outcome: 'fail', code: 10507, transferNo: found.transferNo, message: `not paid by this run: bizTransferNo ${String(fields.bizTransferNo)} was submitted before it, by a run this journal does not record (${was})`}
          }
          // our own earlier attempt landed: report what it became
          return sameRow({...found, message: `already submitted: ${found.message ?? found.outcome}`}, fields)
        }
        // it exists but cannot be read now: unknown, for --resume to settle
        lastError = `already submitted, but it could not be looked up: ${error.platformMessage}`
        checkFirst = sentBefore = true
        await pause(attempt)
        continue
      }
      if (error instanceof PlatformError && error.signed === false) {
        // an unsigned error proves nothing about a create: look it up before believing it
        lastError = error.message
        checkFirst = sentBefore = true
        await pause(attempt)
        continue
      }
      if (error instanceof PlatformError) {
        // a refused transfer may still have a platform number (the channel refused it): name it
        const found = await lookUp(client, fields, health)
        const transferNo = found && found !== 'unreachable' && found.outcome === 'fail' ? found.transferNo : undefined
        return {outcome: 'fail', code: error.code, message: error.platformMessage, ...(transferNo ? {transferNo} : {})}
      }
      if (error instanceof SignatureError) {
        lastError = error.message
        checkFirst = sentBefore = true
      } else if (error instanceof TransportError) {
        health.unreachable()
        lastError = error.message
        checkFirst = error.outcomeUnknown
        sentBefore ||= error.outcomeUnknown
      } else throw error
      await pause(attempt)
    }
  }
  // no attempt's request left the machine (a refused connection, a name that did not resolve)
  if (!sentBefore) return {outcome: 'not sent', message: `not sent: ${lastError}`}
  return {outcome: 'unknown', message: `outcome unknown: ${lastError}`}
}

type Found = Settled & {foundAmount?: number}

/** What identifies a row on the platform. */
type RowKey = {bizTransferNo?: unknown; channel?: unknown; amount?: unknown}

export async function lookUp(client: ClientConfig, fields: RowKey, health?: Health): Promise<Found | undefined | 'unreachable'> {
  try {
    const answer = await queryTransfer(client, {bizTransferNo: String(fields.bizTransferNo), channel: String(fields.channel)})
    health?.answered()
    const data = (answer.response?.body.data ?? {}) as Record<string, unknown>
    const status = String(data.status)
    const outcome: Outcome = status === 'success' ? 'success' : status === 'fail' || status === 'close' ? 'fail' : 'processing'
    return {outcome, transferNo: String(data.transferNo ?? ''), message: data.errorMsg ? String(data.errorMsg) : undefined, foundAmount: Number(data.amount)}
  } catch (error) {
    if (error instanceof TransportError) health?.unreachable()
    else health?.answered()
    if (error instanceof PlatformError && error.code === 20041) return undefined
    return 'unreachable'
  }
}

/** A transfer found under the row's key is this row's only if the amounts agree. */
export function sameRow(found: Found, fields: RowKey): Settled {
  const {foundAmount, ...result} = found
  if (foundAmount !== undefined && Number.isFinite(foundAmount) && foundAmount !== Number(fields.amount)) {
    return {outcome: 'fail', transferNo: result.transferNo, message: `bizTransferNo ${String(fields.bizTransferNo)} already belongs to another transfer (${foundAmount} cents): this row was not paid`}
  }
  return result
}

const pause = (attempt: number) => sleep(200 * 2 ** attempt)
