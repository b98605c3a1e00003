// The shared reader of money files (services/files/reader.ts): rows with the line they start on,
// however the bytes arrive, read as strictly as --data.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {readHeader, readRows, type FileRow, type RowProblem} from '../../src/services/files/reader.js'
import {CsvSplitter, LineSplitter, MAX_RECORD_CHARS} from '../../src/services/files/split.js'

const dir = mkdtempSync(join(tmpdir(), 'unipay-reader-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

async function read(name: string, content: string | Buffer): Promise<(FileRow | RowProblem)[]> {
  const file = join(dir, name)
  writeFileSync(file, content)
  const all: (FileRow | RowProblem)[] = []
  for await (const batch of readRows(file)) all.push(...batch)
  return all
}

/** The records a splitter makes of text fed `step` characters at a time, an error last. */
function fed(splitter: CsvSplitter | LineSplitter, text: string, step: number): unknown[] {
  const out: unknown[] = []
  try {
    for (let at = 0; at < text.length; at += step) out.push(...splitter.push(text.slice(at, at + step)))
    out.push(...splitter.end())
  } catch (error) {
    out.push({error: (error as Error).message, line: (error as {line: number}).line})
  }
  return out
}

/** The records of CSV text fed `step` characters at a time. */
const split = (text: string, step: number, delimiter = ',') => fed(new CsvSplitter(delimiter), text, step)

describe('the CSV splitter', () => {
  const files = [
    'a,b\r\n1,"x\r\ny"\r\n2,z\r\n',
    '\uFEFFa;b\n"q""q";  " sp "  \n\n3;4',
    'a,b\r1,"2\r\r"\r3,4',
    'a,b\n1,"unclosed\n2,3\n',
    'a,b\n1,x"y\n',
    'a,b\n"1"x,2\n',
    'a\tb\n 1 \t" 2 "\n',
  ]
  it('gives the same records and lines whatever pieces the text arrives in', () => {
    for (const text of files) {
      const whole = split(text, text.length, text.includes(';') ? ';' : text.includes('\t') ? '\t' : ',')
      for (const step of [1, 2, 3, 7]) expect(split(text, step, text.includes(';') ? ';' : text.includes('\t') ? '\t' : ','), `${JSON.stringify(text)} by ${step}`).toEqual(whole)
    }
  })

  it('counts a line break inside a quoted cell once, CRLF included, and names the line a record starts on', () => {
    expect(split(files[0], 5)).toEqual([
      {cells: ['a', 'b'], line: 1},
      {cells: ['1', 'x\r\ny'], line: 2},
      {cells: ['2', 'z'], line: 4},
    ])
    expect(split(files[2], 4)).toEqual([
      {cells: ['a', 'b'], line: 1},
      {cells: ['1', '2\r\r'], line: 2},
      {cells: ['3', '4'], line: 5},
    ])
  })

  it('reads quotes as RFC 4180 writes them, and refuses what it does not', () => {
    expect(split(files[1], 100, ';')).toEqual([
      {cells: ['a', 'b'], line: 1},
      {cells: ['q"q', ' sp '], line: 2},
      {cells: ['3', '4'], line: 4},
    ])
    expect(split(files[3], 100)).toEqual([{cells: ['a', 'b'], line: 1}, {error: 'a quoted cell is not closed before the end of the file', line: 2}])
    expect(split(files[4], 100)).toEqual([{cells: ['a', 'b'], line: 1}, {error: 'a quote inside an unquoted cell ("x\\""): quote the whole cell, and write a quote inside it twice ("")', line: 2}])
    expect(split(files[5], 100)).toEqual([{cells: ['a', 'b'], line: 1}, {error: '"x" after a quoted cell\'s closing quote: a quote inside a quoted cell is written twice ("")', line: 2}])
    expect(split(files[6], 100, '\t')).toEqual([
      {cells: ['a', 'b'], line: 1},
      {cells: ['1', ' 2 '], line: 2},
    ])
  })

  it('refuses a record past the bound instead of holding an unclosed quote to the end of the file', () => {
    const splitter = new CsvSplitter(',')
    splitter.push('a,b\n1,"')
    const piece = 'x'.repeat(64 * 1024)
    expect(() => {
      for (let held = 0; held <= MAX_RECORD_CHARS + piece.length; held += piece.length) splitter.push(piece)
    }).toThrow(`a record over ${MAX_RECORD_CHARS} characters (an unclosed quote?)`)
  })

  it('refuses a whole record past the bound that arrives in one piece, after the records before it', () => {
    expect(split(`a,b\n1,2\n3,${'x'.repeat(MAX_RECORD_CHARS)}\n`, MAX_RECORD_CHARS * 2)).toEqual([
      {cells: ['a', 'b'], line: 1},
      {cells: ['1', '2'], line: 2},
      {error: `a record over ${MAX_RECORD_CHARS} characters`, line: 3},
    ])
  })
})

describe('the JSON-lines splitter', () => {
  const lines = (text: string, step: number) => fed(new LineSplitter(), text, step)

  it('gives the same records and lines whatever pieces the text arrives in, a long line in many pieces too', () => {
    const long = `{"a":"${'x'.repeat(5000)}"}`
    const text = `\uFEFF{"a":1}\r\n\n${long}\n  \n{"b":2}`
    const whole = [
      {cells: ['{"a":1}'], line: 1},
      {cells: [long], line: 3},
      {cells: ['{"b":2}'], line: 5},
    ]
    for (const step of [1, 2, 7, 64, 1000, text.length]) expect(lines(text, step), `by ${step}`).toEqual(whole)
  })

  it('refuses a line past the bound as it grows, naming the line it starts on', () => {
    const splitter = new LineSplitter()
    splitter.push('{"a":1}\n')
    const piece = 'x'.repeat(64 * 1024)
    expect(() => {
      for (let sent = 0; sent <= MAX_RECORD_CHARS; sent += piece.length) splitter.push(piece)
    }).toThrow(`a line over ${MAX_RECORD_CHARS} characters`)
  })
})

describe('readRows', () => {
  it('reads a CRLF file with a line break in a quoted cell, naming each later row by its own line', async () => {
    const rows = await read('crlf.csv', 'channel,payeeName,amount\r\nwalletB,"Li\r\nWei",100\r\nwalletB,Wang,200\r\n\r\nwalletB,Zhao,300\r\n')
    expect(rows).toEqual([
      {index: 0, line: 2, record: {channel: 'walletB', payeeName: 'Li\r\nWei', amount: '100'}},
      {index: 1, line: 4, record: {channel: 'walletB', payeeName: 'Wang', amount: '200'}},
      {index: 2, line: 6, record: {channel: 'walletB', payeeName: 'Zhao', amount: '300'}},
    ])
  })

  it('refuses a header that names a column twice, on line 1, and reads no row', async () => {
    expect(await read('dup.csv', 'channel,amount,payeeAccount,amount\nwalletB,100,2088,900000\n')).toEqual([
      {line: 1, field: 'amount', message: 'the column is repeated (columns 2 and 4): which one is meant is not clear'},
    ])
  })

  it('names a row with more or fewer cells than the header, and reads on', async () => {
    expect(await read('ragged.csv', 'a,b\n1,2,3\n4\n5,6\n')).toEqual([
      {line: 2, message: 'not valid CSV: 3 cells, but the header has 2 columns'},
      {line: 3, message: 'not valid CSV: 1 cells, but the header has 2 columns'},
      {index: 0, line: 4, record: {a: '5', b: '6'}},
    ])
  })

  it('keeps a __proto__ column a column, for the consumer to refuse', async () => {
    const [row] = await read('proto.csv', '__proto__,amount\npolluted,100\n')
    expect(Object.keys((row as FileRow).record)).toEqual(['__proto__', 'amount'])
    expect(Object.getPrototypeOf((row as FileRow).record)).toBe(Object.prototype)
  })

  it('reads JSON lines with the parser --data uses: a repeated key with another value is refused by name, numbers kept exact', async () => {
    const rows = await read('rows.jsonl', '\uFEFF{"amount":100,"payeeAccount":"2088"}\r\n\r\n{"amount":100,"amount":900000}\n{"amount":100,"amount":100}\n[1]\n{"amount":12345678901234567890}')
    expect(rows).toEqual([
      {index: 0, line: 1, record: {amount: 100, payeeAccount: '2088'}},
      {line: 3, field: 'amount', message: 'the key is repeated with another value: which one is meant is not clear'},
      // the same value twice says one thing, as --data takes it
      {index: 1, line: 4, record: {amount: 100}},
      {line: 5, message: 'not a JSON object'},
      {index: 2, line: 6, record: {amount: '12345678901234567890'}},
    ])
  })

  it('reads a header whose quoted name holds the separator as its rows are read', () => {
    const file = join(dir, 'quoted-header.csv')
    writeFileSync(file, '"channel","pay, ee",amount\nwalletB,x,1\n')
    expect(readHeader(file)).toEqual({delimiter: ',', columns: ['channel', 'pay, ee', 'amount']})
  })
})
