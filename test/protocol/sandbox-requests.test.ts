import {describe, expect, it} from 'vitest'
import {requestFailed} from '../../src/protocol/sandbox-requests.js'

describe('sandbox logs --failed: what counts as a failure', () => {
  it.each([
    ['/unipay/pay', 200, '0', false],
    ['/unipay/pay', 200, '1', true], // the generic failure code of the /unipay/* API
    ['/unipay/pay', 200, '20052', true],
    ['/epay/api/v1/mapi.php', 200, '1', false], // epay V1 succeeds with 1
    ['/epay/api/v1/mapi.php', 200, '-1', true],
    ['/epay/api/v1/mapi.php', 200, '0', true],
    ['/epay/api/v2/api/pay/create', 200, '0', false],
    ['/epay/api/v2/api/pay/create', 200, '1', true],
    ['/_sandbox/clock', 400, undefined, true],
    ['/unipay/pay', 0, undefined, true], // cut off before an answer
    ['/cashier/x', 200, undefined, false],
  ] as const)('%s HTTP %s code %s: failed %s', (path, status, code, failed) => {
    expect(requestFailed({path, status, code})).toBe(failed)
  })
})
