// The bad-input campaign: hundreds of invalid invocations across every command. Each must
// exit with the documented code (2 unless noted), name what is wrong, show no stack trace, and
// never reach the network (commands run against a counting server that must stay at zero).
import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createPrivateKey, generateKeyPairSync} from 'node:crypto'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generateRsaKeyPair} from '../../src/protocol/keys.js'
import {cli, type Cli} from '../helpers/cli.js'

const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
let c: Cli
let server: Server
let hits = 0
let dir = ''
const f = (name: string) => join(dir, name)

type Case = [args: string[], message: string | RegExp, code?: number]
/** Where the --data, key and small-input sections start: they run as a test of their own. */
let laterSections = 0

const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
  commands: Record<string, {flags: Record<string, unknown>}>
}
const commandIds = Object.keys(manifest.commands)
/** Commands that talk to the platform get the counting profile. */
const withProfile = (args: string[]) => {
  const id = commandIds.filter((cmd) => args.join(':').startsWith(cmd)).sort((a, b) => b.length - a.length)[0]
  return id && 'profile' in manifest.commands[id].flags && !args.includes('--profile') ? [...args, '--profile', 'counter'] : args
}

const long = (n: number) => 'x'.repeat(n)
const pay = (...args: string[]) => ['pay', 'create', '--title', 'T', ...args]
const transfer = (...args: string[]) => [
  'transfer', '--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088',
  ...(args.includes('--amount') ? [] : ['--amount', '100']),
  ...(args.includes('--channel-mch-no') ? [] : ['--channel-mch-no', 'CM']),
  ...args,
]

function cases(): Case[] {
  const all: Case[] = []
  // 1. an unknown flag, for every command
  for (const id of commandIds) all.push([[...id.split(':'), '--no-such-flag'], 'Nonexistent flag: --no-such-flag'])
  // 2. missing required arguments and flags
  all.push(
    [['pay', 'create', '--amount', '1'], '--title: is required'],
    [['gateway', 'prepay', '--type', 'cashier', '--amount', '1'], '--title: is required'],
    [['sign'], 'Missing required flag data'],
    [['verify'], 'Missing required flag data'],
    [['mch', 'login'], 'Missing required flag account'],
    [['transfer', '--channel', 'walletB'], 'Missing required flag'],
    [['api'], 'Missing 1 required arg'],
    [['profile', 'add'], 'Missing 1 required arg'],
    [['profile', 'use'], 'Missing 1 required arg'],
    [['profile', 'remove'], 'Missing 1 required arg'],
    [['profile', 'set'], 'Missing 1 required arg'],
    [['refunds', 'get'], 'Missing 1 required arg'],
    [['transfer', 'batch'], 'Missing 1 required arg'],
    [['sandbox', 'pay'], 'Missing 1 required arg'],
    [['sandbox', 'refund', 'settle'], 'Missing 1 required arg'],
    [['sandbox', 'clock', 'advance'], 'Missing 1 required arg'],
    [['sandbox', 'clock', 'advance', '10 minutes'], 'DURATION: "10 minutes" is not a duration'],
    [['sandbox', 'clock', 'advance', '0s'], 'DURATION: "0s" must be more than 0'],
    [['sandbox', 'transfer', 'confirm'], 'Missing 1 required arg'],
    [['sandbox', 'receivers', 'bind', 'MERCHANT_ID'], 'Missing 1 required arg'],
    [['sandbox', 'users', 'add', 'x'], 'Missing required flag password-stdin'],
    [['sandbox', 'merchants', 'add', 'M9'], 'Missing required flag public-key-file'],
    [['sandbox', 'callbacks', 'resend'], 'Missing 1 required arg'],
  )
  // 3. pay create: every field rule
  for (const [amount, message] of [
    ['0', 'must be at least 1'], ['-1', 'is not a whole number of cents'], ['1.5', 'is not a whole number of cents'], ['abc', 'is not a whole number of cents'],
    ['1e3', 'is not a whole number of cents'], ['10000000000', 'must be at most 9999999999'], ['', 'is not a whole number of cents'], [' 1', 'is not a whole number of cents'],
    ['0x10', 'is not a whole number of cents'], ['１００', 'is not a whole number of cents'],
  ]) all.push([pay('--amount', amount), `--amount: ${amount === '0' || amount === '10000000000' ? message : `"${amount}" ${message}`}`])
  for (const yuan of ['1.234', '-1', 'abc', '1e2', '.5', '1.', '1,00', '¥1', '']) all.push([pay('--yuan', yuan), `--yuan: "${yuan}" is not an amount in yuan with at most 2 decimals`])
  all.push(
    [pay('--yuan', '0'), '--amount: must be at least 1'],
    [pay('--amount', '1', '--yuan', '1'), 'give --amount (cents) or --yuan, not both'],
    [pay(), '--amount: is required'],
    [['pay', 'create', '--title', long(101), '--amount', '1'], '--title: must be at most 100 characters'],
    [['pay', 'create', '--title', '', '--amount', '1'], '--title: is required'],
    [pay('--amount', '1', '--description', long(51)), '--description: must be at most 50 characters'],
    [pay('--amount', '1', '--attach', long(501)), '--attach: must be at most 500 characters'],
    [pay('--amount', '1', '--product', long(33)), '--product: must be at most 32 characters'],
    [pay('--amount', '1', '--capability', long(33)), '--capability: must be at most 32 characters'],
    [pay('--amount', '1', '--open-id', long(129)), '--open-id: must be at most 128 characters'],
    [pay('--amount', '1', '--channel-app-id', long(129)), '--channel-app-id: must be at most 128 characters'],
    [pay('--amount', '1', '--biz-order-no', long(101)), '--biz-order-no: must be at most 100 characters'],
    [pay('--amount', '1', '--extra-param', '{nope'), '--extra-param: must be JSON text'],
    [pay('--amount', '1', '--extra-param', long(2049)), '--extra-param: must be at most 2048 characters'],
    [pay('--amount', '1', '--limit-pay', ...Array(11).fill('x').flatMap((x) => [x])), '--limit-pay: must have at most 10 values'],
    [pay('--amount', '1', '--method', 'walletB_barcode'), '--auth-code: is required for walletB_barcode'],
    [pay('--amount', '1', '--method', 'walletB_barcode', '--auth-code', '134567890123456789'), '--method: contradicts the barcode, which is a walletA code'],
    [pay('--amount', '1', '--auth-code', '994567890123456789'), '--auth-code: must start with a known barcode prefix'],
    [pay('--amount', '1', '--auth-code', 'ab4567890123456789'), '--auth-code: must start with a known barcode prefix'],
    [pay('--amount', '1', '--auth-code', long(129)), '--auth-code: must be at most 128 characters'],
    [pay('--amount', '1', '--method', 'walletQ_qr'), 'Expected --method=walletQ_qr to be one of'],
    [pay('--amount', '1', '--currency', 'CNY'), '--currency: must be a 3-letter lower-case ISO 4217 code'],
    [pay('--amount', '1', '--currency', 'yuan'), '--currency: must be a 3-letter lower-case ISO 4217 code'],
  )
  for (const url of ['ftp://x', 'notaurl', 'http://', 'https:// space.com', `https://x.com/${long(200)}`]) {
    all.push([pay('--amount', '1', '--notify-url', url), /--notify-url: must be (an http\(s\) URL|at most 200 characters)/])
    all.push([pay('--amount', '1', '--return-url', url), /--return-url: must be (an http\(s\) URL|at most 200 characters)/])
  }
  for (const time of ['2025-13-01 00:00:00', '2025-02-30 10:00:00', '2025-01-01T00:00:00', '2025/01/01 00:00:00', 'tomorrow', '2025-01-01 24:00:00', '2025-1-1 00:00:00']) {
    all.push([pay('--amount', '1', '--expired-time', time), '--expired-time: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'])
  }
  all.push(
    [pay('--amount', '1', '--data', '{"goodsDetail":[{"goodsId":"G"}]}'), 'goodsDetail[0].goodsName: is required'],
    [pay('--amount', '1', '--data', '{"goodsDetail":[{"goodsId":"G","goodsName":"n","quantity":0,"unitPrice":1}]}'), 'goodsDetail[0].quantity: must be at least 1'],
    [pay('--amount', '1', '--data', '{"terminal":{"terminalNo":5}}'), 'terminal.terminalNo: must be a string'],
    [pay('--amount', '1', '--data', '{"allocation":"yes"}'), 'allocation'],
    [pay('--amount', '1', '--data', '[1,2]'), '--data: not a JSON object'],
    [pay('--amount', '1', '--data', '{"a":'), '--data: not a JSON object'],
    [pay('--amount', '1', '--data', '@/no/such/file.json'), '--data: cannot read /no/such/file.json: no such file'],
  )
  // 4. other money-moving and lookup commands
  all.push(
    [['refund', 'create', '--amount', '5'], '--trade-no: one of tradeNo / bizOrderNo is required'],
    [['refund', 'create', '--biz-order-no', 'B', '--amount', '0'], '--amount: must be at least 1'],
    [['refund', 'create', '--biz-order-no', 'B', '--amount', 'x'], '--amount: "x" is not a whole number of cents'],
    [['refund', 'create', '--biz-order-no', 'B', '--yuan', '0.001'], '--yuan:'],
    [['refund', 'create', '--biz-order-no', 'B', '--amount', '1', '--reason', long(51)], '--reason: must be at most 50 characters'],
    [['refund', 'create', '--biz-order-no', 'B', '--amount', '1', '--biz-refund-no', long(101)], '--biz-refund-no: must be at most 100 characters'],
    [['refund', 'create', '--biz-order-no', long(101), '--amount', '1'], '--biz-order-no: must be at most 100 characters'],
    [['refund', 'create', '--biz-order-no', 'B'], '--amount: is required'],
    [['refund', 'sync'], '--refund-no: one of refundNo / bizRefundNo is required'],
    [['query', 'refund'], '--refund-no: one of refundNo / bizRefundNo is required'],
    [['query', 'pay'], '--order-no: one of orderNo / bizOrderNo is required'],
    [['query', 'pay', '--order-no', long(101)], '--order-no: must be at most 100 characters'],
    [['pay', 'close'], '--order-no: one of orderNo / bizOrderNo is required'],
    [['pay', 'sync'], '--order-no: one of orderNo / bizOrderNo / outOrderNo is required'],
    [['query', 'alloc'], '--alloc-no: one of allocNo / bizAllocNo is required'],
    [['alloc', 'sync'], '--alloc-no: one of allocNo / bizAllocNo is required'],
    [['query', 'transfer'], '--transfer-no: give transferNo, or bizTransferNo with channel'],
    [['query', 'transfer', '--biz-transfer-no', 'T1'], '--channel: is required with bizTransferNo'],
    [['transfer', 'sync', '--biz-transfer-no', 'T1'], '--channel: is required with bizTransferNo'],
    [['query', 'transfer', '--channel', 'walletX', '--biz-transfer-no', 'T'], 'Expected --channel=walletX to be one of'],
  )
  all.push(
    [['alloc', '--biz-order-no', 'B'], '--receiver: give at least one --receiver or a --receivers-file'],
    [['alloc', '--receiver', 'MERCHANT_ID:1:1'], '--trade-no: one of tradeNo / bizOrderNo is required'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID:1'], 'expected TYPE:ACCOUNT:AMOUNT[:NAME]'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID'], 'expected TYPE:ACCOUNT:AMOUNT[:NAME]'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'BOSS:1:1'], 'receivers[0].receiverType: must be one of MERCHANT_ID'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID:1:0'], 'receivers[0].amount: must be at least 0.01 (yuan)'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID:1:0.001'], 'receivers[0].amount: "0.001" is not an amount in yuan'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID:1:abc'], 'receivers[0].amount: "abc" is not an amount in yuan'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID:1:100000000'], 'receivers[0].amount: must be at most 99999999.99 (yuan)'],
    [['alloc', '--biz-order-no', 'B', '--receiver', `MERCHANT_ID:${long(129)}:1`], 'receivers[0].receiverAccount: must be at most 128 characters'],
    [['alloc', '--biz-order-no', 'B', '--receiver', `MERCHANT_ID:1:1:${long(65)}`], 'receivers[0].receiverName: must be at most 64 characters'],
    [['alloc', '--biz-order-no', 'B', '--receivers-file', '/no/such.json'], '--receivers-file: cannot read /no/such.json'],
    [['alloc', '--biz-order-no', 'B', '--receivers-file', '@BAD_RECEIVERS'], 'is neither a JSON array nor a CSV'],
    [['alloc', '--biz-order-no', 'B', '--receivers-file', '@DUP_RECEIVER_KEY'], 'line 3: amount: the key is repeated with another value'],
    [['alloc', '--biz-order-no', 'B', '--receivers-file', '@DUP_RECEIVER_COLUMN'], 'line 1: amount: the column is repeated (columns 3 and 4)'],
    [['alloc', '--biz-order-no', 'B', '--receivers-file', '@MISSPELT_RECEIVER_COLUMN'], 'receiverAcount: unknown column: did you mean receiverAccount?'],
    [['alloc', '--biz-order-no', 'B', '--receiver', 'MERCHANT_ID:1:1', '--notify-url', 'x'], '--notify-url: must be an http(s) URL'],
  )
  all.push(
    [['transfer', '--channel', 'walletZ', '--channel-mch-no', 'CM', '--payee-type', 'openid', '--payee-account', 'o', '--amount', '1'], 'Expected --channel=walletZ to be one of'],
    [['transfer', '--channel', 'walletB', '--channel-mch-no', 'CM', '--payee-type', 'email', '--payee-account', 'o', '--amount', '1'], 'Expected --payee-type=email to be one of'],
    [transfer('--amount', '0'), /--amount: (must be at least 1|"0")/],
    [['transfer', '--channel', 'walletB', '--channel-mch-no', 'CM', '--payee-type', 'user_id', '--payee-account', '2088', '--amount', '10000000001'], '--amount: must be at most 10000000000'],
    [['transfer', '--channel', 'walletB', '--channel-mch-no', 'CM', '--payee-type', 'openid', '--payee-account', '1', '--amount', '1'], '--payee-type: openid is not taken by walletB'],
    [['transfer', '--channel', 'walletD', '--channel-mch-no', 'CM', '--payee-type', 'user_id', '--payee-account', '1', '--amount', '1'], '--payee-type: user_id is not taken by walletD'],
    [['transfer', '--channel', 'walletA', '--channel-mch-no', 'CM', '--payee-type', 'phone', '--payee-account', '1', '--amount', '1'], '--payee-type: phone is not taken by walletA'],
    [['transfer', '--channel', 'walletA', '--channel-mch-no', 'CM', '--payee-type', 'openid', '--payee-account', 'o', '--amount', '29', '--payee-name', 'Li'], '--payee-name: must be empty for walletA transfers below 0.30 yuan'],
    [['transfer', '--channel', 'walletA', '--channel-mch-no', 'CM', '--payee-type', 'openid', '--payee-account', 'o', '--yuan', '2000'], '--payee-name: is required'],
    [['transfer', '--channel', 'walletA', '--channel-mch-no', 'CM', '--payee-type', 'openid', '--payee-account', 'o', '--amount', '100', '--transfer-scene', 's'], '--transfer-scene: is not sent for walletA'],
    [transfer('--report-info', 'nope'), 'expected TYPE=CONTENT'],
    [transfer('--payee-name', long(101)), '--payee-name: must be at most 100 characters'],
    [transfer('--title', long(101)), '--title: must be at most 100 characters'],
    [transfer('--reason', long(201)), '--reason: must be at most 200 characters'],
    [transfer('--biz-transfer-no', long(101)), '--biz-transfer-no: must be at most 100 characters'],
    [transfer('--channel-mch-no', long(33)), '--channel-mch-no: must be at most 32 characters'],
    [transfer('--attach', long(501)), '--attach: must be at most 500 characters'],
    [['transfer', '--channel', 'walletB', '--channel-mch-no', 'CM', '--payee-type', 'user_id', '--payee-account', long(101), '--amount', '1'], '--payee-account: must be at most 100 characters'],
  )
  // 5. batch files
  for (const [file, message] of [
    ['/no/such/file.csv', 'does not exist'],
    ['@EMPTY', 'no rows: the file is empty or has only its header'],
    ['@HEADER_ONLY', 'no rows: the file is empty or has only its header'],
    ['@UNCLOSED', 'not valid CSV'],
    ['@RAGGED', 'not valid CSV'],
    ['@BAD_ROWS', 'line 2: channel: must be one of walletA, walletB, walletD'],
    ['@BAD_ROWS', 'line 3: amount: "1.5" is not a whole number of cents'],
    ['@BAD_ROWS', 'line 4: payeeType: openid is not taken by walletB'],
    ['@BAD_ROWS', 'line 1: colour: unknown column'],
    ['@DUP_KEYS', 'line 3: bizTransferNo: "K1" is already used by the row on line 2'],
    ['@BAD_JSONL', 'line 1: not JSON'],
    ['@BAD_JSONL', 'line 2: not a JSON object'],
    ['@BAD_JSONL', 'line 3: yuan: "0.001" is not an amount in yuan'],
    // read as strictly as --data: a repeated column or key is refused, by line and name (issue 33.3)
    ['@DUP_COLUMN', 'line 1: amount: the column is repeated (columns 4 and 5)'],
    ['@DUP_JSON_KEY', 'line 2: amount: the key is repeated with another value'],
    ['@HUGE_NUMBER_JSONL', 'line 1: not JSON: the number 1e-10000000 written out would be over'],
    ['@DEEP_JSONL', 'line 1: not JSON: nested deeper than 512 levels'],
    // a CRLF inside a quoted cell is one line: the bad row after it is named on its own line
    ['@CRLF_QUOTED', 'line 4: amount: "1.5" is not a whole number of cents'],
  ] as const) all.push([['transfer', 'batch', file, '--channel-mch-no', 'CM'], message])
  // every file a run will write, checked before anything is sent (issue 33.1)
  all.push(
    [['transfer', 'batch', '@DUP_KEYS', '--out', '/nonexistent/dir/x.csv'], '--out: the folder /nonexistent/dir does not exist: nothing was sent'],
    [['transfer', 'batch', '@DUP_KEYS', '--out', '@DUP_KEYS'], 'is the batch file'],
    [['transfer', 'batch', '@DUP_KEYS', '--dry-run', '--out', '@DUP_KEYS'], 'is the batch file'],
    [['transfer', 'batch', '@DUP_KEYS', '--out', '/proc/self/x.csv'], '--out: cannot write in /proc/self'],
  )
  all.push([['transfer', 'batch', '@BAD_ROWS', '--dry-run', '--channel-mch-no', 'CM'], 'nothing would be sent'], [['transfer', 'batch', '@BAD_ROWS', '--concurrency', '0'], 'Expected an integer greater than or equal to 1'])
  // 6. signing tools and keys
  all.push(
    [['sign', '--data', '{"a":1}', '--private-key', '/no/key.pem'], 'cannot read /no/key.pem'],
    [['sign', '--data', '{"a":1}', '--private-key', '@GARBAGE_KEY'], 'not an RSA private key'],
    [['sign', '--data', '{"a":1}', '--private-key', '@PUBLIC_KEY'], 'not an RSA private key'],
    [['sign', '--data', 'nope', '--private-key', '@PRIVATE_KEY'], '--data: not a JSON object'],
    [['sign', '--data', '"str"', '--private-key', '@PRIVATE_KEY'], '--data: not a JSON object'],
    [['sign', '--data', '@/no/body.json', '--private-key', '@PRIVATE_KEY'], '--data: cannot read /no/body.json'],
    [['verify', '--data', '{"a":1}', '--public-key', '@PUBLIC_KEY'], 'the body has no sign field to verify'],
    [['verify', '--data', '{"a":1,"sign":"x"}', '--public-key', '@GARBAGE_KEY'], 'not an RSA public key'],
    [['verify', '--data', '{"a":1,"sign":"x"}', '--public-key', '/no/pub.pem'], 'cannot read /no/pub.pem'],
    [['verify', '--data', '{"a":', '--public-key', '@PUBLIC_KEY'], '--data: not a JSON object'],
    [['keys', 'generate', '--name', 'bad/name'], '--name: use letters, digits, _ . -'],
    [['keys', 'generate', '--name', '../escape'], '--name: use letters, digits, _ . -'],
    [['api', 'unipay/ping'], 'path must start with /'],
    [['api', '/unipay/ping', '-f', 'novalue'], '-f novalue: expected key=value'],
    [['api', '/unipay/ping', '-F', '=1'], '-F =1: expected key=value'],
    [['api', '/unipay/pay', '-F', 'amount=0', '-f', 'title=x', '-f', 'bizOrderNo=B'], 'amount: must be at least 1'],
    [['api', '/unipay/ping', '--data', '[]'], '--data: not a JSON object'],
  )
  // 7. profiles
  for (const name of ['_bad', 'has space', 'a/b', long(65), '.', 'local']) all.push([['profile', 'add', name, '--base-url', 'https://x.example', '--mch-no', 'M'], /profile name|built-in local/])
  all.push(
    [['profile', 'add', 'p1', '--base-url', 'x.example', '--mch-no', 'M'], 'baseUrl must be an http(s) address'],
    [['profile', 'add', 'p1', '--mch-no', 'M'], '--base-url: is required'],
    [['profile', 'add', 'p1', '--base-url', 'https://x.example'], '--mch-no: is required'],
    [['profile', 'add', 'p1', '--base-url', 'https://x.example', '--mch-no', 'M', '--environment', 'moon'], 'Expected --environment=moon to be one of'],
    [['profile', 'add', 'p1', '--base-url', 'https://x.example', '--mch-no', 'M', '--private-key-file', '/no/k.pem'], 'cannot read /no/k.pem'],
    [['profile', 'add', 'p1', '--base-url', 'https://x.example', '--mch-no', 'M', '--private-key-file', '@GARBAGE_KEY'], 'not an RSA private key'],
    [['profile', 'add', 'p1', '--base-url', 'https://x.example', '--mch-no', 'M', '--platform-public-key-file', '@PRIVATE_KEY'], 'not an RSA public key'],
    [['profile', 'add', 'counter', '--base-url', 'https://x.example', '--mch-no', 'M'], 'profile "counter" exists'],
    [['profile', 'use', 'ghost'], 'no profile named "ghost"'],
    [['profile', 'show', 'ghost'], 'no profile named "ghost"'],
    [['profile', 'remove', 'ghost'], 'no profile named "ghost"'],
    [['profile', 'remove', 'local'], 'the built-in local profile cannot be removed'],
    [['profile', 'set', 'colour', 'red', '--profile', 'counter'], 'unknown setting "colour"'],
    [['profile', 'set', 'baseUrl', 'nope', '--profile', 'counter'], 'baseUrl must be an http(s) address'],
    [['profile', 'set', 'environment', 'moon', '--profile', 'counter'], 'environment must be one of'],
    [['profile', 'set', 'environment', 'local', '--profile', 'counter'], 'environment "local" is reserved'],
    [['profile', 'set', 'allocAmountUnit', 'fen', '--profile', 'counter'], 'allocAmountUnit must be one of: yuan, cents'],
    [['profile', 'set', 'baseUrl', '--profile', 'counter'], 'give a value for baseUrl'],
    [['profile', 'set', 'baseUrl', 'https://x.example', '--profile', 'ghost'], 'no profile named "ghost"'],
    [['profile', 'set', 'baseUrl', 'https://x.example', '--profile', 'local'], 'the built-in local profile cannot be changed'],
    [['pay', 'create', '--title', 'x', '--amount', '1', '--profile', 'ghost'], 'no profile named "ghost"'],
  )
  // 8. management lookups and login
  all.push(
    [['refunds', 'get', 'RF1'], 'not logged in to the management API', 1],
    [['refunds', 'list', '--create-time-start', '2025-01-01'], '--create-time-start: must be a time "yyyy-MM-dd HH:mm:ss" (GMT+8)'],
    [['refunds', 'list', '--create-time-end', 'yesterday'], '--create-time-end: must be a time'],
    [['refunds', 'list', '--page', '0'], 'Expected an integer greater than or equal to 1'],
    [['refunds', 'list', '--size', '0'], 'Expected an integer greater than or equal to 1'],
    [['refunds', 'list', '--size', '1001'], 'Expected an integer less than or equal to 1000'],
    [['refunds', 'list', '--limit', 'many'], 'Expected an integer'],
    [['mch', 'login', '--account', 'ops'], 'no terminal to ask for the password: pass it on standard input with --password-stdin'],
    [['mch', 'login', '--account', 'ops', '--password-stdin'], 'the password is empty'],
  )
  // 9. sandbox controls (no platform call: validated before the sandbox is reached)
  all.push(
    [['sandbox', 'start', '--port', '70000'], 'Expected an integer less than or equal to 65535'],
    [['sandbox', 'start', '--time-scale', '0'], 'Expected an integer greater than or equal to 1'],
    [['sandbox', 'pay', 'X', '--wallet', 'walletZ'], 'Expected --wallet=walletZ to be one of'],
    [['sandbox', 'refund', 'settle', 'R', '--fail', '--close'], 'cannot also be provided when using'],
    [['sandbox', 'receivers', 'bind', 'BOSS', '1'], 'Expected BOSS to be one of'],
    [['sandbox', 'faults', 'add', 'meteor'], 'Expected meteor to be one of'],
    [['sandbox', 'faults', 'add', 'latency', '--times', '0'], 'Expected an integer greater than or equal to 1'],
    [['sandbox', 'balance', '--set-yuan', '1.001'], 'is not an amount in yuan'],
    [['sandbox', 'balance', '--set-amount', '-5'], 'is not a whole number of cents'],
    [['sandbox', 'merchants', 'add', 'M9', '--public-key-file', '/no/pub.pem'], 'cannot read /no/pub.pem'],
    [['listen', '--port', '-1'], /Expected an integer|greater than or equal to 0/],
  )
  laterSections = all.length
  // 10. --data in every command that wraps an endpoint: unknown and CLI-owned fields refused,
  // fields it carries checked like the flags that set them
  const gateway = (...args: string[]) => ['gateway', 'prepay', '--type', 'cashier', '--title', 'T', '--amount', '1', ...args]
  for (const [command, endpoint] of [[pay('--amount', '1'), '/unipay/pay'], [gateway(), '/unipay/gateway/pre-pay']] as const) {
    all.push(
      [[...command, '--data', '{"colour":"red"}'], `--data: "colour" is not a field of POST ${endpoint}`],
      [[...command, '--data', '{"notifyURL":"https://x.example"}'], `"notifyURL" is not a field of POST ${endpoint}`],
      [[...command, '--data', '{"colour":"red"}'], `unipay api ${endpoint} --data`],
      [[...command, '--data', '{"goodsDetail":[],"bogus":1,"other":2}'], '"bogus" is not a field'],
      [[...command, '--data', '{"mchNo":"M9"}'], '"mchNo" is set by the CLI'],
      [[...command, '--data', '{"reqId":"R1"}'], '"reqId" is set by the CLI'],
      [[...command, '--data', '{"sign":"x"}'], '"sign" is set by the CLI'],
      [[...command, '--data', '{"appId":"A9"}'], '"appId" is set by the CLI'],
      [[...command, '--data', '{"notifyUrl":"ftp://x"}'], '--notify-url: must be an http(s) URL'],
      [[...command, '--data', '{"returnUrl":"nope"}'], '--return-url: must be an http(s) URL'],
      [[...command, '--data', '{"attach":5}'], '--attach: must be a string'],
      [[...command, '--data', '{"expiredTime":"tomorrow"}'], '--expired-time: must be a time'],
      [[...command, '--data', '{"extraParam":"{nope"}'], '--extra-param: must be JSON text'],
      [[...command, '--data', '{"currency":"CNY"}'], '--currency: must be a 3-letter lower-case ISO 4217 code'],
      [[...command, '--data', '{"description":"bell\\u0007"}'], '--description: must not contain control characters'],
      [[...command, '--data', '{"attach":"a\\u001b[31mred"}'], '--attach: must not contain control characters'],
      [[...command, '--data', '{"goodsDetail":[{"goodsId":"G","goodsName":"a\\nb","quantity":1,"unitPrice":1}]}'], 'goodsDetail[0].goodsName: must not contain control characters'],
      [[...command, '--data', '{"allocation":"yes"}'], 'allocation'],
      [[...command, '--data', '[]'], '--data: not a JSON object'],
      [[...command, '--data', '@/no/such/data.json'], '--data: cannot read /no/such/data.json'],
      // an endless file ends at the input cap, at once
      [[...command, '--data', '@/dev/zero'], '--data: /dev/zero is over 10 MB, the most unipay reads'],
    )
  }
  all.push(
    [['api', '/unipay/ping', '--data', '@/dev/zero'], '--data: /dev/zero is over 10 MB'],
    [['sign', '--data', '@/dev/zero', '--private-key', '@PRIVATE_KEY'], '--data: /dev/zero is over 10 MB'],
  )
  all.push(
    [['pay', 'create', '--data', '{"amount":1}'], '--title: is required'],
    [['pay', 'create', '--data', '{"title":"","amount":1}'], '--title: is required'],
    [['pay', 'create', '--data', '{"title":"T"}'], '--amount: is required'],
    [['pay', 'create', '--data', '{"title":"T","amount":0}'], '--amount: must be at least 1'],
    [['pay', 'create', '--data', '{"title":"T","amount":"100"}'], '--amount:'],
    [['pay', 'create', '--data', '{"title":"T","amount":1.5}'], '--amount:'],
    // no openId for walletA_jsapi is not a client error: the platform fills the stored one (flows.test.ts)
    [['pay', 'create', '--data', '{"title":"T","amount":1,"method":"walletA_barcode"}'], '--auth-code: is required for walletA_barcode'],
    [['pay', 'create', '--data', '{"title":"T","amount":1,"limitPay":[""]}'], '--limit-pay: an empty value restricts nothing'],
    [['gateway', 'prepay', '--title', 'T', '--amount', '1'], '--type: is required'],
    [['gateway', 'prepay', '--data', '{"title":"T","amount":1,"gatewayPayType":"mall"}'], 'gatewayPayType: '],
    [['gateway', 'prepay', '--type', 'cashier', '--data', '{"amount":1}'], '--title: is required'],
    [['gateway', 'prepay', '--type', 'cashier', '--data', '{"title":"T"}'], '--amount: is required'],
    [['gateway', 'prepay', '--type', 'cashier', '--data', '{"title":"T","amount":1,"method":"walletA_qr"}'], '"method" is not a field of POST /unipay/gateway/pre-pay'],
    [['gateway', 'prepay', '--type', 'cashier', '--data', `{"title":"T","amount":1,"storeNo":"${long(65)}"}`], '--store-no: must be at most 64 characters'],
  )
  // 11. small ones: empty --limit-pay, control characters in text fields, API paths, key folders
  all.push(
    [pay('--amount', '1', '--limit-pay', ''), '--limit-pay: an empty value restricts nothing'],
    [pay('--amount', '1', '--limit-pay', 'no_credit', '--limit-pay', ''), '--limit-pay: an empty value restricts nothing'],
    [['pay', 'create', '--title', 'a\u0001b', '--amount', '1'], '--title: must not contain control characters'],
    [pay('--amount', '1', '--description', 'two\nlines'), '--description: must not contain control characters'],
    [pay('--amount', '1', '--attach', 'esc\u001b[2J'), '--attach: must not contain control characters'],
    [pay('--amount', '1', '--biz-order-no', 'B\t1'), '--biz-order-no: must not contain control characters'],
    [pay('--amount', '1', '--open-id', 'o\u007f'), '--open-id: must not contain control characters'],
    [['refund', 'create', '--biz-order-no', 'B', '--amount', '1', '--reason', 'a\rb'], '--reason: must not contain control characters'],
    [transfer('--payee-name', 'Li\u0007'), '--payee-name: must not contain control characters'],
    [['query', 'pay', '--biz-order-no', 'B\n1'], '--biz-order-no: must not contain control characters'],
    [['api', '/unipay/query/pay-order', '-f', 'bizOrderNo=B\u00071'], 'bizOrderNo: must not contain control characters'],
    // assigned, "__proto__" would become the body's prototype: the key dropped, its fields sent unseen
    [['api', '/unipay/ping', '--data', '{"__proto__":{"channelMchNo":"CM9"}}'], '__proto__: the key "__proto__" is refused'],
    [['api', '/unipay/ping', '-f', '__proto__=1'], '-f __proto__=1: the key "__proto__" is refused'],
    [['api', '/unipay/ping', '-F', '__proto__=null'], '-F __proto__=null: the key "__proto__" is refused'],
    // nested, and keys that flatten like nested fields: the platform refuses them (10506), so nothing is sent
    [['api', '/unipay/pay', '--data', '{"goodsDetail":[{"goodsId":"G1","__proto__":{"price":1}}]}'], 'goodsDetail[0].__proto__: the key "__proto__" is refused'],
    [['api', '/unipay/pay', '-f', 'goodsDetail[0].goodsId=G1'], 'goodsDetail[0].goodsId: the key holds ".", "[" or "]": it would flatten like a nested field'],
    [['api', '/unipay/pay', '--data', '{"extra":{"a.b":"1"}}'], 'extra.a.b: the key holds ".", "[" or "]"'],
    [['api', '/unipay/pay', '--data', '{"title":"T\\ud800"}'], 'title: holds an unpaired UTF-16 surrogate'],
    [['api', '/unipay/pay', '--data', '{"goodsDetail":[{"goods\\udc00Id":"G1"}]}'], 'goodsDetail[0].goods\udc00Id: the key holds an unpaired UTF-16 surrogate'],
    [['api', '/unipay/../mch/user/list'], '".." segments are refused'],
    [['api', '/unipay/%2e%2e/mch/user/list'], '".." segments are refused'],
    [['api', '/unipay/./ping'], '".." segments are refused'],
    [['api', '/unipay/../mch', '--raw-path'], '".." segments are refused'],
    [['api', '/mch/user/list'], 'is outside /unipay/: pass --raw-path'],
    [['api', '/_sandbox/merchants'], 'is outside /unipay/: pass --raw-path'],
    [['api', '/unipay'], 'is outside /unipay/'],
    [['api', '//evil.example/unipay/ping'], 'give the endpoint path only'],
    [['api', '/unipay/ping?x=1'], 'give the endpoint path only'],
    [['api', '/unipay/ping#x'], 'give the endpoint path only'],
    [['api', '/unipay/%zz'], 'not a valid URL path'],
    [['keys', 'generate', '--out-dir', '@A_FILE'], 'cannot write the key files there: a file, not a folder, is in the way'],
    [['keys', 'generate', '--out-dir', '@A_FILE_SUB'], 'cannot write the key files there: a file, not a folder, is in the way'],
  )
  // 12. keys: RSA of 2048 bits or more only, encrypted keys explained
  for (const [file, message] of [
    ['@EC_KEY', 'the key is EC (prime256v1), not RSA'],
    ['@ED_KEY', 'the key is Ed25519, not RSA'],
    ['@SHORT_KEY', 'an RSA key of 1024 bits is too short: use 2048 bits or more'],
    ['@ENC_KEY', 'the private key is encrypted'],
    ['@ENC_KEY', 'openssl pkey -in enc.pem -out plain.pem'],
    ['@ENC_PKCS1_KEY', 'the private key is encrypted'],
  ] as const) {
    all.push(
      [['sign', '--data', '{"a":1}', '--private-key', file], message],
      [['profile', 'add', `k${all.length}`, '--base-url', 'https://x.example', '--mch-no', 'M', '--private-key-file', file], message],
      [['pay', 'create', '--title', 'T', '--amount', '1', '--private-key', file], message],
    )
  }
  for (const [file, message] of [
    ['@EC_PUBLIC', 'the key is EC (prime256v1), not RSA'],
    ['@ED_PUBLIC', 'the key is Ed25519, not RSA'],
    ['@SHORT_PUBLIC', 'an RSA key of 1024 bits is too short'],
  ] as const) {
    all.push(
      [['verify', '--data', '{"a":1,"sign":"x"}', '--public-key', file], message],
      [['profile', 'add', `k${all.length}`, '--base-url', 'https://x.example', '--mch-no', 'M', '--platform-public-key-file', file], message],
      [['query', 'pay', '--biz-order-no', 'B', '--platform-public-key', file], message],
    )
  }
  return all
}

beforeAll(async () => {
  c = cli()
  dir = join(c.dir, 'files')
  mkdirSync(dir)
  server = createServer((_req, res) => {
    hits++
    res.end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const pair = generateRsaKeyPair()
  writeFileSync(f('private.pem'), pair.privateKeyPem, {mode: 0o600})
  writeFileSync(f('public.pem'), pair.publicKeyPem)
  writeFileSync(f('garbage.pem'), 'this is not a key')
  const ec = generateKeyPairSync('ec', {namedCurve: 'prime256v1'})
  const ed = generateKeyPairSync('ed25519')
  const short = generateKeyPairSync('rsa', {modulusLength: 1024})
  const rsa = createPrivateKey(pair.privateKeyPem)
  writeFileSync(f('ec.pem'), ec.privateKey.export({format: 'pem', type: 'pkcs8'}), {mode: 0o600})
  writeFileSync(f('ed.pem'), ed.privateKey.export({format: 'pem', type: 'pkcs8'}), {mode: 0o600})
  writeFileSync(f('short.pem'), short.privateKey.export({format: 'pem', type: 'pkcs1'}), {mode: 0o600})
  writeFileSync(f('enc.pem'), rsa.export({format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'secret'}), {mode: 0o600})
  writeFileSync(f('enc-pkcs1.pem'), rsa.export({format: 'pem', type: 'pkcs1', cipher: 'aes-256-cbc', passphrase: 'secret'}), {mode: 0o600})
  writeFileSync(f('ec-public.pem'), ec.publicKey.export({format: 'pem', type: 'spki'}))
  writeFileSync(f('ed-public.pem'), ed.publicKey.export({format: 'pem', type: 'spki'}))
  writeFileSync(f('short-public.pem'), short.publicKey.export({format: 'pem', type: 'spki'}))
  writeFileSync(f('a-file'), 'not a folder')
  writeFileSync(f('empty.csv'), '')
  writeFileSync(f('header.csv'), 'channel,payeeType,payeeAccount,amount\n')
  writeFileSync(f('unclosed.csv'), 'channel,payeeType,payeeAccount,amount\n"walletB,user_id,2088,1\n')
  writeFileSync(f('ragged.csv'), 'channel,payeeType,payeeAccount,amount\nwalletB,user_id,2088,1,extra,more\n')
  writeFileSync(f('bad-rows.csv'), 'channel,payeeType,payeeAccount,amount,colour\nwalletZ,user_id,2088,1,\nwalletB,user_id,2088,1.5,\nwalletB,openid,o,1,\nwalletB,user_id,2088,1,red\n')
  writeFileSync(f('dup-keys.csv'), 'channel,bizTransferNo,payeeType,payeeAccount,amount\nwalletB,K1,user_id,2088a,100\nwalletB,K1,user_id,2088b,5000\n')
  writeFileSync(f('bad.jsonl'), '{nope\n[1]\n{"channel":"walletB","payeeType":"user_id","payeeAccount":"2088","yuan":"0.001"}\n')
  writeFileSync(f('receivers.txt'), '"unclosed,quote\nrow')
  // the same row's amount twice: the dry run used to show 9000.00 yuan, exit 0
  writeFileSync(f('dup-column.csv'), 'channel,payeeType,payeeAccount,amount,amount\nwalletB,user_id,2088A,100,900000\n')
  writeFileSync(f('dup-key.jsonl'), '{"channel":"walletB","payeeType":"user_id","payeeAccount":"2088A","amount":100}\n{"channel":"walletB","payeeType":"user_id","payeeAccount":"2088B","amount":100,"amount":900000}\n')
  writeFileSync(f('huge-number.jsonl'), '{"channel":"walletB","payeeType":"user_id","payeeAccount":"2088A","amount":1e-10000000}\n')
  writeFileSync(f('deep.jsonl'), `{"channel":"walletB","attach":${'['.repeat(600)}${']'.repeat(600)}}\n`)
  writeFileSync(f('crlf-quoted.csv'), 'channel,payeeType,payeeAccount,amount,payeeName\r\nwalletB,user_id,2088A,100,"Li\r\nWei"\r\nwalletB,user_id,2088B,1.5,Wang\r\n')
  writeFileSync(f('receivers-dup.json'), '[\n  {"receiverType":"MERCHANT_ID","receiverAccount":"1900","amount":"1.00"},\n  {"receiverType":"MERCHANT_ID","receiverAccount":"1901","amount":"1.00","amount":"9000.00"}\n]\n')
  writeFileSync(f('receivers-dup.csv'), 'receiverType,receiverAccount,amount,amount\nMERCHANT_ID,1900,1.00,9000.00\n')
  writeFileSync(f('receivers-misspelt.csv'), 'receiverType,receiverAcount,amount\nMERCHANT_ID,1900,1.00\n')
  const {port} = server.address() as AddressInfo
  const added = await c.run(['profile', 'add', 'counter', '--base-url', `http://127.0.0.1:${port}`, '--mch-no', 'M1', '--private-key-file', f('private.pem')])
  expect(added.code).toBe(0)
})

afterAll(async () => {
  server.close()
  await c.cleanup()
})

const FILES: Record<string, string> = {
  '@PRIVATE_KEY': 'private.pem', '@PUBLIC_KEY': 'public.pem', '@GARBAGE_KEY': 'garbage.pem', '@EMPTY': 'empty.csv', '@HEADER_ONLY': 'header.csv',
  '@EC_KEY': 'ec.pem', '@ED_KEY': 'ed.pem', '@SHORT_KEY': 'short.pem', '@ENC_KEY': 'enc.pem', '@ENC_PKCS1_KEY': 'enc-pkcs1.pem',
  '@EC_PUBLIC': 'ec-public.pem', '@ED_PUBLIC': 'ed-public.pem', '@SHORT_PUBLIC': 'short-public.pem', '@A_FILE': 'a-file', '@A_FILE_SUB': 'a-file/sub',
  '@UNCLOSED': 'unclosed.csv', '@RAGGED': 'ragged.csv', '@BAD_ROWS': 'bad-rows.csv', '@BAD_JSONL': 'bad.jsonl', '@BAD_RECEIVERS': 'receivers.txt', '@DUP_KEYS': 'dup-keys.csv',
  '@DUP_COLUMN': 'dup-column.csv', '@DUP_JSON_KEY': 'dup-key.jsonl', '@HUGE_NUMBER_JSONL': 'huge-number.jsonl', '@DEEP_JSONL': 'deep.jsonl', '@CRLF_QUOTED': 'crlf-quoted.csv',
  '@DUP_RECEIVER_KEY': 'receivers-dup.json', '@DUP_RECEIVER_COLUMN': 'receivers-dup.csv', '@MISSPELT_RECEIVER_COLUMN': 'receivers-misspelt.csv',
}
const resolveFiles = (args: string[]) => args.map((a) => (FILES[a] ? f(FILES[a]) : a))

describe('the bad-input campaign', () => {
  const all = cases()

  it('has at least 200 cases', () => {
    expect(all.length).toBeGreaterThanOrEqual(200)
  })

  const campaign = async (list: Case[]) => {
    const failures: string[] = []
    const queue = [...list]
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const [args, message, code = 2] = item
        const argv = withProfile(resolveFiles(args))
        const result = await c.run(argv)
        const text = result.stderr
        const matches = typeof message === 'string' ? text.includes(message) : message.test(text)
        if (result.code !== code || !matches || /\n\s+at .+:\d+:\d+\)?\n/.test(text)) {
          failures.push(`unipay ${argv.join(' ')}\n  exit ${result.code} (want ${code}), want message ${String(message)}\n  stderr: ${text.trim().split('\n').slice(0, 4).join(' | ')}`)
        }
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()])
    expect(failures, failures.join('\n\n')).toEqual([])
    expect(hits).toBe(0)
  }

  it('every invalid invocation exits with its code, names the problem, prints no stack trace and sends nothing', async () => {
    await campaign(all.slice(0, laterSections))
  }, 600_000)

  it('so does every bad --data, key, API path and text field', async () => {
    await campaign(all.slice(laterSections))
  }, 600_000)

  // With the built-in local profile and no sandbox running: every command refuses bad input
  // before it starts the local sandbox (and a huge stdin is refused at the cap).
  it('bad input never starts the local sandbox, whatever the command', async () => {
    const own = cli()
    try {
      const transferArgs = ['--channel', 'walletB', '--payee-type', 'user_id', '--payee-account', '2088']
      const list: Case[] = [
        [['pay', 'create', '--title', 'T', '--amount', '0'], '--amount: must be at least 1'],
        [['pay', 'create', '--title', 'T', '--amount', '1', '--notify-url', 'ftp://x'], '--notify-url: must be an http(s) URL'],
        [['pay', 'close'], 'one of orderNo / bizOrderNo is required'],
        [['pay', 'sync'], 'is required'],
        [['query', 'pay'], '--order-no: one of orderNo / bizOrderNo is required'],
        [['query', 'refund'], 'is required'],
        [['query', 'transfer', '--channel', 'walletB'], '--transfer-no: give transferNo, or bizTransferNo with channel'],
        [['query', 'alloc'], 'is required'],
        [['query', 'gateway'], 'is required'],
        [['refund', 'create', '--amount', '5'], '--trade-no: one of tradeNo / bizOrderNo is required'],
        [['refund', 'sync'], 'is required'],
        [['alloc', 'sync'], 'is required'],
        [['transfer', ...transferArgs, '--amount', '0'], '--amount: must be at least 1'],
        [['transfer', 'sync', '--channel', 'walletB'], '--transfer-no: give transferNo, or bizTransferNo with channel'],
        [['gateway', 'prepay', '--type', 'cashier', '--amount', '1'], '--title: is required'],
        [['api', '/unipay/pay', '--data', '{}'], 'is required'],
        [['refunds', 'list', '--status', 'failure'], '--status: "failure" is not one of'],
        [['sandbox', 'balance', '--set-yuan', '1.001'], 'is not an amount in yuan'],
        [['listen', '--forward-to', 'ftp://x'], 'must be an http(s) URL'],
        [['epay', 'v1', 'create', '--name', 'VIP', '--money', '1.001'], '--money: "1.001" is not an amount in yuan'],
        [['epay', 'v1', 'submit', '--name', 'VIP', '--money', '1', '--notify-url', 'ftp://x'], '--notify-url: must be an http(s) URL'],
        [['epay', 'v1', 'query'], '--out-trade-no: give --out-trade-no or --trade-no'],
        [['epay', 'v2', 'create', '--name', 'VIP', '--money', '1', '--type', 'jsapi'], '--method: is required for --type jsapi'],
        [['epay', 'v2', 'submit', '--name', 'VIP', '--money', '0'], '--money: "0" is below the minimum of 0.01'],
        [['epay', 'v2', 'query'], '--out-trade-no: give --out-trade-no or --trade-no'],
        [['epay', 'v2', 'refund', '--out-trade-no', 'E1', '--money', '-1'], '--money: "-1" is not an amount in yuan'],
        [['epay', 'v2', 'refund-query'], '--out-refund-no: give --out-refund-no or --refund-no'],
        [['epay', 'v2', 'close'], '--out-trade-no: give --out-trade-no or --trade-no'],
      ]
      const failures: string[] = []
      for (const [args, message] of list) {
        const result = await own.run(args)
        if (result.code !== 2 || !result.stderr.includes(String(message)) || result.stderr.includes('starting the local sandbox')) {
          failures.push(`unipay ${args.join(' ')}: exit ${result.code}: ${result.stderr.trim().split('\n').slice(0, 2).join(' | ')}`)
        }
      }
      // a subprocess of our own: the CLI stops reading at the cap, so the rest of the input meets a closed pipe
      const huge = spawn(process.execPath, [BIN, 'pay', 'create', '--title', 'T', '--amount', '1', '--data', '-'], {env: own.env, stdio: ['pipe', 'ignore', 'pipe']})
      let stderr = ''
      huge.stderr.on('data', (d) => (stderr += d))
      huge.stdin.on('error', () => {})
      huge.stdin.end(' '.repeat(11 * 1024 * 1024))
      expect(await new Promise((resolve) => huge.on('close', resolve))).toBe(2)
      expect(stderr).toContain('--data: standard input is over 10 MB, the most unipay reads')
      expect(failures, failures.join('\n')).toEqual([])
      expect(existsSync(join(own.dir, 'data', 'unipay', 'sandbox', 'runtime.json'))).toBe(false)
      // the first good epay call starts it and signs with what it fills in (V1's MD5 key, V2's merchant key)
      for (const version of ['v1', 'v2']) {
        const created = await own.run(['epay', version, 'create', '--name', 'VIP', '--money', '1.00'])
        expect(created.code, created.stderr).toBe(0)
        expect(created.stderr).toContain('starting the local sandbox')
        expect((await own.run(['sandbox', 'stop'])).code).toBe(0)
      }
    } finally {
      await own.cleanup()
    }
  }, 120_000)

  // A subprocess: Node 20's recursive mkdir never returns under /proc, and in-process that hang
  // would stop the whole test worker instead of failing this test.
  it('keys generate --out-dir where no folder can be made (/proc) is exit 2, not a hang', async () => {
    const own = cli({process: true})
    try {
      const result = await own.run(['keys', 'generate', '--out-dir', '/proc/unipay-keys'])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('/proc/unipay-keys: cannot write the key files there: a folder cannot be made there')
    } finally {
      await own.cleanup()
    }
  }, 30_000)
})
