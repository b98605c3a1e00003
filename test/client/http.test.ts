import {describe, expect, it} from 'vitest'
import {endpointUrl} from '../../src/client/http.js'

describe('endpointUrl', () => {
  it('puts the path under the base address, keeping a path prefix of the base', () => {
    expect(endpointUrl('http://127.0.0.1:8720', '/unipay/pay')).toBe('http://127.0.0.1:8720/unipay/pay')
    expect(endpointUrl('https://pay.example.com/', '/unipay/pay')).toBe('https://pay.example.com/unipay/pay')
    expect(endpointUrl('https://gw.example.com/payment', '/unipay/pay')).toBe('https://gw.example.com/payment/unipay/pay')
    expect(endpointUrl('https://gw.example.com/payment/', '/token/login')).toBe('https://gw.example.com/payment/token/login')
  })
})
