// The default channel merchant number: one rule, for `transfer` and `transfer batch` alike.
import {describe, expect, it} from 'vitest'
import {defaultChannelMchNo} from '../../src/services/transfer.js'

describe('defaultChannelMchNo', () => {
  it("is the profile's, else on the built-in local profile the sandbox's, else none", () => {
    expect(defaultChannelMchNo({environment: 'sandbox', settings: {environment: 'sandbox', channelMchNo: 'CM9'}})).toBe('CM9')
    expect(defaultChannelMchNo({environment: 'local', settings: {environment: 'local', channelMchNo: 'CM9'}})).toBe('CM9')
    expect(defaultChannelMchNo({environment: 'local', settings: {environment: 'local'}})).toBe('CM_SANDBOX')
    expect(defaultChannelMchNo({environment: 'production', settings: {environment: 'production'}})).toBeUndefined()
  })
})
