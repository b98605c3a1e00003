// The files around a batch's money (issue 33): what the operator writes, what the tool writes
// back. Every file a run will write is checked before anything is sent; the files it writes are
// 0600 and safe to open in a spreadsheet; a write that fails mid-run loses nothing and never
// leads to paying again.
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cli, type Cli} from '../helpers/cli.js'
import {envelope, fakePlatform, fakeProfile, signed, type FakePlatform} from '../helpers/fake-platform.js'

let c: Cli
let fake: FakePlatform
beforeAll(async () => {
  c = cli()
  fake = await fakePlatform()
  await fakeProfile(c, 'fake', fake.url)
  expect((await c.run(['sandbox', 'start', '--time-scale', '10'])).code).toBe(0)
})
afterAll(async () => {
  await fake.close()
  await c.cleanup()
})

let count = 0
/** A file in the test's folder, written as the operator wrote it. */
function operatorFile(text: string, name = `f${++count}.csv`): string {
  const file = join(c.dir, name)
  writeFileSync(file, text)
  return file
}
const mode = (file: string) => (statSync(file).mode & 0o777).toString(8)

describe('cells a spreadsheet would run', () => {
  // the platform's message for each payee: what a hostile or careless channel may answer
  const messages: Record<string, string> = {
    u1: '=HYPERLINK("http://evil.example/x","click me")',
    u2: '+SUM(1,2)',
    u3: "-2+3+cmd|' /C calc'!A0",
    u4: '\t=1+1',
    u5: '\r=1+1',
    u6: 'plain words, -1 kept inside',
  }
  const rows = [
    'channel,bizTransferNo,payeeType,payeeAccount,amount',
    'walletB,=15891+1,user_id,u1,100',
    'walletB,@SUM26243,user_id,u2,200',
    'walletB,B3,user_id,u3,300',
    'walletB,B4,user_id,u4,400',
    'walletB,B5,user_id,u5,500',
    'walletB,B6,user_id,u6,600',
  ].join('\r\n')

  it('are neutralised with a leading quote in --out, numbers the tool writes stay numbers, and the file is 0600', async () => {
    fake.respond = (request, path) =>
      path === '/unipay/transfer' ? signed(envelope(request, {code: 30001, msg: messages[request.payeeAccount as string]})) : signed(envelope(request, {code: 20041, msg: 'transfer order not found'}))
    const file = operatorFile(rows)
    const out = join(c.dir, 'formula-results.csv')
    // a results file left readable by an earlier tool: replaced, and no longer readable by others
    writeFileSync(out, 'old', {mode: 0o644})
    const run = await c.run(['transfer', 'batch', file, '--profile', 'fake', '--yes', '--out', out])
    expect(run.code, run.stderr).toBe(5)
    expect(readFileSync(out, 'utf8')).toBe(
      [
        'line,bizTransferNo,channel,amount,outcome,transferNo,code,message',
        `2,'=15891+1,walletB,100,fail,,30001,"'=HYPERLINK(""http://evil.example/x"",""click me"")"`,
        `3,'@SUM26243,walletB,200,fail,,30001,"'+SUM(1,2)"`,
        "4,B3,walletB,300,fail,,30001,'-2+3+cmd|' /C calc'!A0",
        "5,B4,walletB,400,fail,,30001,'\t=1+1",
        `6,B5,walletB,500,fail,,30001,"'\r=1+1"`,
        '7,B6,walletB,600,fail,,30001,"plain words, -1 kept inside"',
        '',
      ].join('\n'),
    )
    expect(mode(out)).toBe('600')
  })

  it('are neutralised in the dry run\'s plan, which is 0600 too (it holds the payees\' accounts)', async () => {
    const file = operatorFile('channel,bizTransferNo,payeeType,payeeAccount,amount\nwalletB,-1+1,user_id,=cmd|calc,100\nwalletB,K2,user_id,@u2,250\n')
    const plan = join(c.dir, 'formula-plan.csv')
    const run = await c.run(['transfer', 'batch', file, '--dry-run', '--out', plan, '--channel-mch-no', 'CM'])
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(plan, 'utf8')).toBe("line,bizTransferNo,channel,amount,payee\n2,'-1+1,walletB,100,'=cmd|calc\n3,K2,walletB,250,'@u2\n")
    expect(mode(plan)).toBe('600')
  })
})
