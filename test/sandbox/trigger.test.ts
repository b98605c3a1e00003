// `sandbox trigger`: every /unipay event arrives at the notify address, signed, with the
// objects the sandbox created for it.
import {describe, expect, it} from 'vitest'
import {checkSystemCallback} from '../../src/protocol/callback.js'
import {TRIGGER_EVENTS} from '../../src/protocol/local-sandbox.js'
import {controlHeaders, useCallbackReceiver, useTestSandbox, waitFor} from '../helpers/sandbox.js'

// the clock stands still: a trigger drives its objects to the event at once, whatever the clock says
const t = useTestSandbox({pausedClock: true})
const receiver = useCallbackReceiver()

const trigger = async (event: string, notifyUrl = receiver.url) => {
  const response = await fetch(`${t.sandbox.url}/_sandbox/trigger`, {method: 'POST', headers: controlHeaders(t.sandbox.runtime), body: JSON.stringify({event, notifyUrl, mchNo: t.client.mchNo})})
  return {status: response.status, body: (await response.json()) as Record<string, any>}
}

describe('trigger', () => {
  it.each(TRIGGER_EVENTS.map((e) => [e]))('%s: the event arrives, signed, about the object created', async (event) => {
    const {status, body} = await trigger(event)
    expect(status).toBe(200)
    const [kind, outcome] = event.split('.')
    const wantedEvent = event === 'alloc.partial' ? 'alloc.success' : event
    const ref = body.orderNo && kind === 'pay' ? body.orderNo : body.refundNo ?? body.allocNo ?? body.transferNo
    const arrival = await waitFor(() => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.event === wantedEvent && JSON.stringify(b).includes(ref)))
    expect(checkSystemCallback(JSON.stringify(arrival), {platformKey: t.client.platformKey}).verified).toBe(true)
    if (event === 'alloc.partial') expect(JSON.stringify(arrival)).toContain('partial')
    expect(outcome).toBeTruthy()
  })

  it('refuses an unknown event and a notify address that is not http(s)', async () => {
    expect((await trigger('pay.maybe')).status).toBe(400)
    expect((await trigger('pay.success', 'ftp://x')).body.message).toContain('notifyUrl')
  })
})
