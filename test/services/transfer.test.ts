// Transfers: the default channel merchant number (one rule, for `transfer` and `transfer batch` alike) and the scene report read from --report-info.
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../src/errors.js'
import {defaultChannelMchNo, reportInfosFromPairs} from '../../src/services/transfer.js'

describe('defaultChannelMchNo', () => {
  it("is the profile's, else on the built-in local profile the sandbox's, else none", () => {
    expect(defaultChannelMchNo({environment: 'sandbox', settings: {environment: 'sandbox', channelMchNo: 'CM9'}})).toBe('CM9')
    expect(defaultChannelMchNo({environment: 'local', settings: {environment: 'local', channelMchNo: 'CM9'}})).toBe('CM9')
    expect(defaultChannelMchNo({environment: 'local', settings: {environment: 'local'}})).toBe('CM_SANDBOX')
    expect(defaultChannelMchNo({environment: 'production', settings: {environment: 'production'}})).toBeUndefined()
  })
})

describe('reportInfosFromPairs', () => {
  it('splits TYPE=CONTENT at the first "=", keeping an empty content and later "=" in it', () => {
    expect(reportInfosFromPairs(['scene=reward', 'note=a=b', 'empty='])).toEqual([
      {infoType: 'scene', infoContent: 'reward'},
      {infoType: 'note', infoContent: 'a=b'},
      {infoType: 'empty', infoContent: ''},
    ])
    expect(reportInfosFromPairs(undefined)).toBeUndefined()
  })

  it('refuses a pair without a type (exit 2, naming the pair)', () => {
    for (const pair of ['nope', '=content']) {
      let caught: unknown
      try {
        reportInfosFromPairs(['scene=reward', pair])
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(UsageError)
      expect((caught as UsageError).exitCode).toBe(2)
      expect((caught as UsageError).problems).toEqual([{field: 'reportInfo', message: `"${pair}": expected TYPE=CONTENT`}])
    }
  })
})
