import {describe, expect, it} from 'vitest'
import {arrivalHeader, arrivalJson, arrivalRow} from '../../src/output/arrivals.js'
import {displayWidth} from '../../src/output/table.js'
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

describe('listen rows', () => {
  const arrival = {
    time: '2026-11-24T03:05:07+08:00', protocol: 'system' as const, method: 'POST', path: '/notify', event: 'refund.success', status: 'success', amount: '30',
    numbers: {orderNo: 'DP20261124030507000001', bizOrderNo: 'P20261124030507E88381BD', refundNo: 'RF20261124030507000001', bizRefundNo: 'RF20261124030507EA31AA74'},
    verified: true, answer: {status: 200, body: 'SUCCESS'}, rawBody: '{}',
  }

  for (const width of [80, 87, 100, 120, 160, 200]) {
    it(`fit ${width} columns, header too, every number whole`, () => {
      const lines = [arrivalHeader(width), ...arrivalRow(arrival, false, width).split('\n')]
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width)
      for (const [key, value] of Object.entries(arrival.numbers)) expect(lines.join('\n')).toMatch(new RegExp(`(^| )${key}=${value}( |$)`, 'm'))
      expect(lines[1]).toMatch(/^03:05:07 (system +)?refund\.success +success +30 \(¥0\.30\) +yes +200 SUCCESS/)
    })
  }

  it('on 80 columns, PROTOCOL goes first (an easy_pay notification says so under EVENT); the numbers go below the row', () => {
    expect(arrivalHeader(80)).toBe('GMT+8    EVENT            STATUS        AMOUNT           VERIFIED ANSWER')
    expect(arrivalRow(arrival, false, 80).split('\n')[0]).toBe('03:05:07 refund.success   success       30 (¥0.30)       yes      200 SUCCESS')
    const easyPay = {...arrival, protocol: 'easy_pay' as const, event: undefined, status: 'TRADE_SUCCESS', amount: '100', numbers: {trade_no: 'DP1', out_trade_no: 'E1'}, answer: {status: 200, body: 'success'}}
    expect(arrivalRow(easyPay, false, 80)).toBe('03:05:07 easy_pay         TRADE_SUCCESS 100 (¥1.00)      yes      200 success\n  trade_no=DP1 out_trade_no=E1')
    expect(arrivalHeader(100)).toMatch(/^GMT\+8 +PROTOCOL +EVENT .* NUMBERS$/)
  })

  it('on a wide terminal, numbers on the row and continued under the NUMBERS column', () => {
    const lines = arrivalRow(arrival, false, 160).split('\n')
    const at = arrivalHeader(160).indexOf('NUMBERS')
    expect(lines[0].slice(at)).toMatch(/^orderNo=DP\d+ bizOrderNo=/)
    for (const line of lines.slice(1)) expect(line.slice(0, at).trim()).toBe('')
  })

  it('piped: the amount as received (a string, by the protocol) and as a number beside it', () => {
    expect(JSON.parse(arrivalJson(arrival, false))).toMatchObject({amount: '30', amountCents: 30})
    expect(JSON.parse(arrivalJson({...arrival, amount: undefined}, false))).not.toHaveProperty('amountCents')
  })
})
