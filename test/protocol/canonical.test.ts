import {generateKeyPairSync} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {canonicalString, flattenToStrings, formatNumber} from '../../src/protocol/canonical.js'
import {parseJsonObject, stringifyJson} from '../../src/protocol/json.js'
import {loadPrivateKey, loadPublicKey} from '../../src/protocol/keys.js'
import {centsToYuan, yuanToCents} from '../../src/protocol/money.js'
import {signString, verifyString} from '../../src/protocol/signature.js'
import {formatGmt8, parseGmt8} from '../../src/protocol/time.js'

describe('formatNumber', () => {
  it.each([
    ['1.50', '1.5'],
    ['100.0', '100'],
    ['12.50', '12.5'],
    ['0.10', '0.1'],
    ['1e3', '1000'],
    ['1.5E-7', '0.00000015'],
    ['-0.0', '0'],
    ['-2.500', '-2.5'],
    ['1990000000000000001', '1990000000000000001'],
    ['0', '0'],
  ])('%s -> %s', (literal, expected) => expect(formatNumber(literal)).toBe(expected))
})

describe('canonicalString', () => {
  it('keeps 19-digit integers and decimal literals exact from raw text', () => {
    const body = parseJsonObject('{"b":1990000000000000001,"a":12.50,"sign":"x","SIGN":"y"}')
    expect(canonicalString(body)).toBe('a=12.5&b=1990000000000000001')
    expect(stringifyJson(body)).toContain('1990000000000000001')
  })

  it('sorts whole keys by code unit, so [10] comes before [2] and upper case before lower', () => {
    const items = Array.from({length: 11}, (_, i) => ({id: i}))
    const text = canonicalString({items, Z: 1, a: 2})
    expect(text.indexOf('items[10].id')).toBeLessThan(text.indexOf('items[2].id'))
    expect(text.startsWith('Z=1&a=2')).toBe(true)
  })

  it('drops only the top-level sign, keeps nested sign keys and empty strings, skips null and empties', () => {
    expect(canonicalString({data: {sign: 's'}, e: '', n: null, arr: [], obj: {}, t: true, f: false})).toBe(
      'data.sign=s&e=&f=false&t=true',
    )
  })

  it('reads 6.50 as the number 6.5 for validation, and long ids as their literal', async () => {
    const {toPlain} = await import('../../src/protocol/json.js')
    expect(toPlain(parseJsonObject('{"a":6.50,"b":1990000000000000001,"c":0.1,"d":100}'))).toEqual({a: 6.5, b: '1990000000000000001', c: 0.1, d: 100})
  })

  it('never trims, escapes or encodes values', () => {
    expect(canonicalString({u: ' a&b=c ', z: '中文'})).toBe('u= a&b=c &z=中文')
  })

  it('flattens callback data into strings', () => {
    expect(flattenToStrings({details: [{amount: 1}], ok: true, n: null})).toEqual({'details[0].amount': '1', ok: 'true'})
  })
})

describe('canonicalString against the rules written out plainly', () => {
  /** Section 1 of the protocol notes, as directly as it reads: every pair, one sort, one join. */
  function plainly(body: Record<string, unknown>): string {
    const pairs: [string, string][] = []
    const walk = (value: unknown, key: string): void => {
      if (value === null || value === undefined) return
      if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${key}[${i}]`))
      if (typeof value === 'object' && !('isLosslessNumber' in value)) return Object.entries(value).forEach(([k, v]) => walk(v, `${key}.${k}`))
      pairs.push([key, typeof value === 'object' ? formatNumber((value as {value: string}).value) : typeof value === 'number' ? formatNumber(String(value)) : String(value)])
    }
    for (const [key, value] of Object.entries(body)) if (key.toLowerCase() !== 'sign') walk(value, key)
    pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return pairs.map(([k, v]) => `${k}=${v}`).join('&')
  }

  it('agrees on 2,000 bodies of 0 to 60 fields, flat and nested, numbers in every form', () => {
    let seed = 7
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const names = ['a', 'B', 'a.b', 'aa', 'Z', 'b', 'goodsDetail', 'sign', 'SIGN', 'Sign', 'x_1', '10', '2', '中', 'é', 'title', 'amount']
    const scalar = () => [null, undefined, '', 'T&zz=1', true, false, 0, -1, 12.5, 1990000000000000001n.toString(), ...parseJsonObject('{"n":[12.50,1990000000000000001,1e3,-0.0]}').n as unknown[]][Math.floor(next() * 14)]
    const value = (depth: number): unknown => {
      const kind = next()
      if (depth >= 3 || kind < 0.6) return scalar()
      if (kind < 0.8) return Array.from({length: Math.floor(next() * 12)}, () => value(depth + 1))
      return Object.fromEntries(Array.from({length: Math.floor(next() * 5)}, () => [names[Math.floor(next() * names.length)], value(depth + 1)]))
    }
    for (let n = 0; n < 2000; n++) {
      const body: Record<string, unknown> = {}
      const fields = Math.floor(next() * 61)
      // a third of the bodies flat (starting at the depth limit gives scalars only)
      const depth = [3, 0, 2][n % 3]
      for (let f = 0; f < fields; f++) body[`${names[Math.floor(next() * names.length)]}${Math.floor(next() * 40)}`] = value(depth)
      // the top-level sign in any letter case, a scalar or an object (which leaves the flat path)
      if (n % 5 === 0) body[['sign', 'SIGN', 'Sign', 'sIgN'][(n / 5) % 4]] = n % 10 === 0 ? 'x' : {nested: 'y'}
      expect(canonicalString(body), JSON.stringify(body)).toBe(plainly(body))
    }
  })
})

describe('keys', () => {
  const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
  const pkcs8Pem = privateKey.export({format: 'pem', type: 'pkcs8'}).toString()
  const pkcs1Pem = privateKey.export({format: 'pem', type: 'pkcs1'}).toString()
  const pkcs8Der = privateKey.export({format: 'der', type: 'pkcs8'}).toString('base64')
  const pkcs1Der = privateKey.export({format: 'der', type: 'pkcs1'}).toString('base64')
  const spkiPem = publicKey.export({format: 'pem', type: 'spki'}).toString()
  const spkiDer = publicKey.export({format: 'der', type: 'spki'}).toString('base64')
  const pkcs1PublicDer = publicKey.export({format: 'der', type: 'pkcs1'}).toString('base64')

  it.each([
    ['PKCS#8 PEM', pkcs8Pem],
    ['PKCS#1 PEM', pkcs1Pem],
    ['PKCS#8 Base64 with line breaks', pkcs8Der.replace(/(.{64})/g, '$1\n')],
    ['PKCS#1 Base64', pkcs1Der],
  ])('loads a private key from %s', (_name, text) => {
    const signature = signString('a=1', loadPrivateKey(text))
    expect(verifyString('a=1', signature, publicKey)).toBe(true)
  })

  it.each([
    ['SPKI PEM', spkiPem],
    ['SPKI Base64', spkiDer],
    ['PKCS#1 Base64', pkcs1PublicDer],
  ])('loads a public key from %s', (_name, text) => {
    expect(verifyString('a=1', signString('a=1', privateKey), loadPublicKey(text))).toBe(true)
  })

  it('rejects garbage without echoing it', () => {
    expect(() => loadPrivateKey('not a key SECRET')).toThrow(/^not an RSA private key/)
    expect(() => loadPrivateKey('not a key SECRET')).not.toThrow(/SECRET/)
  })
})

describe('money and time', () => {
  it('converts yuan and cents exactly', () => {
    expect(yuanToCents('0.1')).toBe(10)
    expect(yuanToCents('19.99')).toBe(1999)
    expect(yuanToCents('99999999.99')).toBe(9999999999)
    expect(centsToYuan(1999)).toBe('19.99')
    expect(centsToYuan(5)).toBe('0.05')
    for (const bad of ['1.999', '-1', '1e2', '', 'abc', '.5']) expect(() => yuanToCents(bad)).toThrow()
  })

  it('formats GMT+8 whatever the machine time zone', () => {
    expect(formatGmt8(new Date('2025-11-22T02:30:00Z'))).toBe('2025-11-22 10:30:00')
    expect(formatGmt8(new Date('2025-12-31T16:00:00Z'))).toBe('2026-01-01 00:00:00')
    expect(parseGmt8('2025-11-22 10:30:00')?.toISOString()).toBe('2025-11-22T02:30:00.000Z')
    expect(parseGmt8('2025-02-30 10:00:00')).toBeUndefined()
  })
})

describe('a number built to cost', () => {
  it.each([
    ['1e-10000000', '1e-10000000', 10_000_002],
    ['1e10000000', '1e10000000', 10_000_001],
    ['100 digits', `1${'0'.repeat(99)}`, 100],
    ['101 digits', `1${'0'.repeat(100)}`, 101],
    ['1. and 100,000 zeros', `1.${'0'.repeat(100_000)}`, 1],
    ['-0.5e-98', '-0.5e-98', 102],
    ['0e99999999999', '0e99999999999', 1],
    ['1e- and a 400-digit exponent', `1e-${'9'.repeat(400)}`, Number.POSITIVE_INFINITY],
  ])('%s: the length written out is found without writing it', async (_, literal, length) => {
    const {plainNumberLength} = await import('../../src/protocol/canonical.js')
    expect(plainNumberLength(literal)).toBe(length)
  })

  it('formats up to 100 characters and refuses beyond, in linear time', async () => {
    const {NumberTooLongError} = await import('../../src/protocol/canonical.js')
    expect(formatNumber(`1${'0'.repeat(99)}`)).toHaveLength(100)
    expect(formatNumber(`1.${'0'.repeat(100_000)}`)).toBe('1')
    expect(formatNumber('-1e-97')).toBe(`-0.${'0'.repeat(96)}1`)
    expect(() => formatNumber('-1e-98')).toThrow(NumberTooLongError)
    expect(() => formatNumber('1e-10000000')).toThrow(NumberTooLongError)
    expect(() => parseJsonObject('{"a":1e-10000000}')).toThrow('the number 1e-10000000 written out would be over 100 characters')
  })
})
