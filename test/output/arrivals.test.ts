import {describe, expect, it} from 'vitest'
import {arrivalHeader, arrivalRow} from '../../src/output/arrivals.js'
import {recordRows} from '../../src/output/record.js'

describe('one clock on screen', () => {
  it('listen shows an arrival\'s time in GMT+8, whatever the time zone of the time it was given in', () => {
    expect(arrivalHeader()).toMatch(/^GMT\+8 /)
    const arrival = {time: '2026-11-23T19:05:07.000Z', protocol: 'system' as const, method: 'POST', path: '/notify', numbers: {}, verified: true, answer: {status: 200, body: 'SUCCESS'}, rawBody: ''}
    expect(arrivalRow(arrival, false)).toMatch(/^03:05:07 /)
    expect(arrivalRow({...arrival, time: '2026-11-24T03:05:07+08:00'}, false)).toMatch(/^03:05:07 /)
  })

  it('a gateway order shows status words, its fund status too', () => {
    const rows = Object.fromEntries(recordRows({status: 'wait_pay', fundStatus: 'init', amount: 100}))
    expect(rows).toEqual({status: {value: 'wait_pay', gloss: 'waiting for the payer'}, fundStatus: {value: 'init', gloss: 'not started'}, amount: {value: '100', gloss: '¥1.00'}})
  })
})
