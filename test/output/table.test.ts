import {describe, expect, it} from 'vitest'
import {money, status, time} from '../../src/output/format.js'
import {displayWidth, renderRecord, renderRows, truncate} from '../../src/output/table.js'

const widest = (text: string) => Math.max(...text.split('\n').map(displayWidth))

// Rows as `refunds list` shows them: numbers, money, status words, a Chinese title.
const HEADERS = ['id', 'refundNo', 'bizRefundNo', 'bizOrderNo', 'title', 'amount', 'status', 'createTime']
const ROWS = [
  ['2000000000000001', 'RF20261124032524000001', 'RF20261124032524EA31AA74', 'P202611240325212F7CD292', '测试订单标题很长的中文名称', money(40), status('fail'), '2026-11-24 03:25:24'],
  ['2000000000000002', 'RF20261124032529000002', 'RF-2', 'P2', 'Coffee', money(1234567), status('progress'), '2026-11-24 03:25:29'],
]

describe('tables', () => {
  it('never pass control characters (terminal escape sequences) through: they are shown, inert, and measured as shown', () => {
    const hostile = 'paid\u001b[2J\u001b]0;pwned\u0007 ok\u009b\u202e'
    expect(renderRecord([['status', hostile]], false)).toBe('status\tpaid\\u001b[2J\\u001b]0;pwned\\u0007 ok\\u009b\\u202e')
    const table = renderRows(['a', 'b'], [[hostile, 'x']], true, {width: 80})
    // eslint-disable-next-line no-control-regex -- the assertion is that these never get through
    expect(table).not.toMatch(/[\u001b\u0007\u009b\u202e]/)
    // the escaped text takes its columns: `b` still lines up
    const [head, , row] = table.split('\n')
    expect(row.indexOf('x')).toBe(head.indexOf('b'))
  })

  it('keeps tab-separated rows one line each when piped, whatever the width', () => {
    expect(renderRows(['x', 'y'], [['a\tb', 'c\nd']], false, {width: 10})).toBe('x\ty\na b\tc d')
  })

  it('counts Chinese characters as two columns', () => {
    expect(displayWidth('测试')).toBe(4)
    expect(displayWidth('¥0.40')).toBe(5)
    expect(displayWidth('e\u0301')).toBe(1)
  })

  it('counts an emoji as two columns, a ZWJ family or a flag as one emoji, and never cuts inside one', () => {
    expect(displayWidth('🚀')).toBe(2)
    expect(displayWidth('👨\u200d👩\u200d👧\u200d👦')).toBe(2)
    expect(displayWidth('👍🏽')).toBe(2)
    expect(displayWidth('🇨🇳')).toBe(2)
    expect(displayWidth('❤\ufe0f')).toBe(2)
    expect(displayWidth('a🚀b')).toBe(4)
    const family = '👨\u200d👩\u200d👧\u200d👦'
    expect(truncate(`ab${family}${family}`, 5)).toBe(`ab${family}…`)
    const table = renderRows(['who', 'n'], [[`${family} 🚀`, '1'], ['xx', '2']], true, {width: 40})
    const [head, , first, second] = table.split('\n')
    expect(displayWidth(first.slice(0, first.indexOf('1')))).toBe(displayWidth(head.slice(0, head.indexOf('n'))))
    expect(displayWidth(second.slice(0, second.indexOf('2')))).toBe(displayWidth(head.slice(0, head.indexOf('n'))))
  })

  it('renders 150,000 rows on a terminal (no spread of every row into one call)', () => {
    const rows = Array.from({length: 150_001}, (_, i) => [`RF${String(i).padStart(22, '0')}`, money(i), status('success')])
    const text = renderRows(['bizRefundNo', 'amount', 'status'], rows, true, {width: 80})
    const lines = text.split('\n')
    expect(lines).toHaveLength(150_003)
    expect(lines.at(-1)).toBe('RF0000000000000000150000  150000 (¥1500.00)  success (succeeded)')
  })

  it('piped: raw values, the word and the cents, without the glosses a terminal shows', () => {
    expect(renderRows(['amount', 'status'], [[money(30), status('success')]], false)).toBe('amount\tstatus\n30\tsuccess')
    expect(renderRows(['amount', 'status'], [[money(30), status('success')]], true, {width: 80})).toContain('30 (¥0.30)  success (succeeded)')
    expect(renderRecord([['amount', money(30)], ['status', status('fail')]], false)).toBe('amount\t30\nstatus\tfail')
  })

  it('wraps a column that wraps (a reason) in the room the more important columns leave, before any less important one', () => {
    const reason = 'the channel refused the refund: the payer account is closed (sandbox test value)'
    const hidden: string[][] = []
    const text = renderRows(['bizRefundNo', 'status', 'errorMsg', 'currency'], [['RF1', status('fail'), reason, 'CNY']], true, {
      width: 60, importance: ['bizRefundNo', 'status', 'errorMsg', 'currency'], wrap: ['errorMsg'], onHidden: (h) => hidden.push(h),
    })
    expect(widest(text)).toBeLessThanOrEqual(60)
    expect(hidden).toEqual([['currency']])
    expect(text).not.toContain('…')
    const [, , ...lines] = text.split('\n')
    expect(lines.length).toBeGreaterThan(1)
    const at = text.split('\n')[0].indexOf('errorMsg')
    // the whole reason, in order, under its header (a line that ends at a space loses it)
    expect(lines.map((line) => line.slice(at)).join('').replace(/ /g, '')).toBe(reason.replace(/ /g, ''))
  })

  it('writes a wrapping column under its row when the columns before it leave less than its minimum, never leaving it out', () => {
    const reason = 'the channel refused the refund (sandbox)'
    const hidden: string[][] = []
    const text = renderRows(['bizRefundNo', 'bizOrderNo', 'errorMsg'], [['RF20261127093658000002', 'P20261127093652AFC15997', reason], ['RF2', 'P2', '']], true, {
      width: 60, importance: ['bizRefundNo', 'bizOrderNo', 'errorMsg'], wrap: ['errorMsg'], onHidden: (h) => hidden.push(h),
    })
    expect(hidden).toEqual([])
    expect(text.split('\n')).toEqual([
      'bizRefundNo             bizOrderNo',
      '──────────────────────  ───────────────────────',
      'RF20261127093658000002  P20261127093652AFC15997',
      `    errorMsg: ${reason}`,
      'RF2                     P2',
    ])
    // piped, it is a column like any other
    expect(renderRows(['bizRefundNo', 'errorMsg'], [['RF2', reason]], false, {width: 20, wrap: ['errorMsg']})).toBe(`bizRefundNo\terrorMsg\nRF2\t${reason}`)
  })

  it('a column of times says its zone in its header on a terminal, once; piped, the times alone', () => {
    const rows = [[time('2026-11-27T09:36:58+08:00'), time('2026-11-27 10:00:00')], [time('2026-11-27T01:36:58Z'), '']]
    expect(renderRows(['createTime', 'finishTime'], rows, true, {width: 80})).toBe(
      [
        'createTime (GMT+8)   finishTime (GMT+8)',
        '───────────────────  ───────────────────',
        '2026-11-27 09:36:58  2026-11-27 10:00:00',
        '2026-11-27 09:36:58',
      ].join('\n'),
    )
    expect(renderRows(['createTime'], [rows[1]], false)).toBe('createTime\n2026-11-27 09:36:58')
    // in a record, beside the time
    expect(renderRecord([['payTime', time('2026-11-27 10:00:00')]], true)).toBe('payTime  2026-11-27 10:00:00 (GMT+8)')
    // what is not a time is shown as it came, without a zone
    expect(renderRecord([['payTime', time('yesterday')]], true)).toBe('payTime  yesterday')
  })

  for (const width of [80, 100, 160]) {
    it(`fits a list table into ${width} columns, most important columns first, amounts whole`, () => {
      const hidden: string[][] = []
      const text = renderRows(HEADERS, ROWS, true, {width, importance: ['bizRefundNo', 'amount', 'status', 'title'], onHidden: (h) => hidden.push(h)})
      expect(widest(text)).toBeLessThanOrEqual(width)
      const [head, rule, ...lines] = text.split('\n')
      expect(head).toContain('bizRefundNo')
      expect(rule).toMatch(/^─+/)
      expect(text).toContain('1234567 (¥12345.67)')
      expect(text).toContain('RF20261124032524EA31AA74')
      // columns line up: every cell of a column starts at the header's column
      const at = displayWidth(head.slice(0, head.indexOf('amount')))
      for (const line of lines) {
        const chars = [...line]
        let col = 0
        let prefix = ''
        for (const ch of chars) {
          if (col >= at) break
          prefix += ch
          col += displayWidth(ch)
        }
        expect(col, line).toBe(at)
        expect(line.slice(prefix.length)).toMatch(/^\d+ \(¥/)
      }
      // what is not shown is named, so the user knows to ask for it
      for (const header of HEADERS) expect(head.includes(header) || hidden[0].includes(header), header).toBe(true)
      expect(head.split(/ +/).length).toBeGreaterThanOrEqual(width === 80 ? 3 : width === 100 ? 4 : 7)
    })
  }

  it('cuts a long cell with an ellipsis at its display width', () => {
    const text = renderRows(['title', 'note'], [['测试订单标题很长的中文名称'.repeat(4), 'x'.repeat(30)]], true, {width: 40})
    expect(widest(text)).toBeLessThanOrEqual(40)
    expect(text).toContain('…')
  })

  it('shows the chosen columns in the chosen order, and all of them with --wide', () => {
    const chosen = renderRows(HEADERS, ROWS, true, {width: 80, columns: ['status', 'id']})
    expect(chosen.split('\n')[0]).toMatch(/^status +id$/)
    const hidden: string[][] = []
    const narrow = renderRows(HEADERS, ROWS, true, {width: 40, columns: ['bizRefundNo', 'bizOrderNo'], onHidden: (h) => hidden.push(h)})
    expect(narrow.split('\n')[0]).toMatch(/^bizRefundNo +$|^bizRefundNo$/)
    expect(hidden).toEqual([['bizOrderNo']])
    expect(renderRows(HEADERS, ROWS, false, {columns: ['status', 'id']}).split('\n')[1]).toBe('fail\t2000000000000001')
    const wide = renderRows(HEADERS, ROWS, true, {width: 80, wide: true})
    for (const header of HEADERS) expect(wide.split('\n')[0]).toContain(header)
    expect(wide).not.toContain('…')
    expect(() => renderRows(HEADERS, ROWS, true, {columns: ['stauts']})).toThrow('unknown column "stauts"; columns: id, refundNo, bizRefundNo')
  })

  for (const width of [80, 100, 160]) {
    it(`renders a record compactly in ${width} columns: labels sized to the longest, long values wrapped`, () => {
      const sign = 'A'.repeat(344)
      const text = renderRecord([['title', '测试订单'], ['refundableBalance', '36 (¥0.36)'], ['sign', sign], ['empty', '']], true, width)
      expect(widest(text)).toBeLessThanOrEqual(width)
      const lines = text.split('\n')
      expect(lines[0]).toBe('title              测试订单')
      expect(lines[1]).toBe('refundableBalance  36 (¥0.36)')
      expect(text).not.toMatch(/[─┌│]/)
      expect(text.replace(/\s/g, '')).toContain(`sign${sign}`)
      expect(text).not.toContain('empty')
    })
  }
})
