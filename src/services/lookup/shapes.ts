// What a number's shape says about what it names, and which lookups to ask in which order.
//
// The shapes are the local sandbox's numbers (src/sandbox: pay.ts, gateway.ts, refund.ts,
// transfer.ts, alloc.ts) and the CLI's own, generated when a create leaves its business number
// out (services/call.ts generateBusinessNo: pay.ts, gateway.ts, refund.ts, transfer.ts,
// alloc.ts, epay.ts; the batch's in batch/file.ts). STAMP is the creation time, yyyyMMddHHmmss
// in GMT+8; N a digit; X an upper-case hex digit.
//
//   shape                 made by                              likely kinds, asked in this order
//   DP STAMP N{6}         sandbox: payment order               orderNo
//   T STAMP N{6}          sandbox: payment order's trade       tradeNo
//   GW STAMP N{6}         sandbox: gateway order               gateway orderNo
//   GT STAMP N{6}         sandbox: gateway order's trade       tradeNo (of a gateway order)
//   RF STAMP N{6}         sandbox: refund                      refundNo, then bizRefundNo
//   R STAMP N{6}          sandbox: bizRefundNo left out        bizRefundNo
//   TR STAMP N{7}         sandbox: transfer                    transferNo
//   DA STAMP N{6}         sandbox: split (allocation)          allocNo
//   P STAMP X{8}          CLI: pay create                      bizOrderNo (payment first)
//   G STAMP X{8}          CLI: gateway prepay                  bizOrderNo (gateway order first)
//   E STAMP X{8}          CLI: epay create (out_trade_no)      bizOrderNo (payment first)
//   RF STAMP X{8}         CLI: refund create                   bizRefundNo, then refundNo
//   ER STAMP X{8}         CLI: epay refund (out_refund_no)     bizRefundNo
//   TF STAMP X{8}         CLI: transfer                        bizTransferNo
//   BT X{30} (lower hex)  CLI: transfer batch                  bizTransferNo
//   AL STAMP X{8}         CLI: alloc                           bizAllocNo
//
// `RF` is both the sandbox's refundNo and the CLI's bizRefundNo: both are likely, the one whose
// tail fits asked first. A real platform's numbers may share no prefix with these, so after the
// likely lookups come the rest, in the order that costs fewest calls: every lookup is one call
// but a bizTransferNo without --channel (one per transfer channel, three), and an unknown number
// is most often the merchant's own (from the shop's back office), so the merchant's numbers come
// before the platform's of each kind.
import {TRANSFER_CHANNELS} from '../../protocol/schemas.js'
import {parseGmt8} from '../../protocol/time.js'

/** The numbers an order, or what hangs off it, is known by. */
export type NumberKind =
  | 'bizOrderNo'
  | 'orderNo'
  | 'tradeNo'
  | 'gateway orderNo'
  | 'refundNo'
  | 'bizRefundNo'
  | 'transferNo'
  | 'bizTransferNo'
  | 'allocNo'
  | 'bizAllocNo'

/** One lookup: a query by one field (a bizTransferNo's with one channel). Each is one call. */
export type Ask =
  | {query: 'pay'; field: 'orderNo' | 'bizOrderNo'}
  | {query: 'gateway'; field: 'orderNo' | 'bizOrderNo'}
  | {query: 'refund'; field: 'refundNo' | 'bizRefundNo'}
  | {query: 'transfer'; field: 'transferNo'}
  | {query: 'transfer'; field: 'bizTransferNo'; channel: string}
  | {query: 'alloc'; field: 'allocNo' | 'bizAllocNo'}

const STAMP = String.raw`(\d{14})`
const SHAPES: {shape: RegExp; asks: Ask[]}[] = [
  {shape: new RegExp(`^DP${STAMP}\\d{6}$`), asks: [{query: 'pay', field: 'orderNo'}]},
  {shape: new RegExp(`^T${STAMP}\\d{6}$`), asks: [{query: 'pay', field: 'orderNo'}]},
  // a gateway order, or its trade (GT, once a method is picked): the gateway order says which
  {shape: new RegExp(`^G[WT]${STAMP}\\d{6}$`), asks: [{query: 'gateway', field: 'orderNo'}]},
  {shape: new RegExp(`^RF${STAMP}\\d{6}$`), asks: [{query: 'refund', field: 'refundNo'}, {query: 'refund', field: 'bizRefundNo'}]},
  {shape: new RegExp(`^R${STAMP}\\d{6}$`), asks: [{query: 'refund', field: 'bizRefundNo'}]},
  {shape: new RegExp(`^TR${STAMP}\\d{7}$`), asks: [{query: 'transfer', field: 'transferNo'}]},
  {shape: new RegExp(`^DA${STAMP}\\d{6}$`), asks: [{query: 'alloc', field: 'allocNo'}]},
  {shape: new RegExp(`^P${STAMP}[0-9A-F]{8}$`), asks: [{query: 'pay', field: 'bizOrderNo'}, {query: 'gateway', field: 'bizOrderNo'}]},
  {shape: new RegExp(`^G${STAMP}[0-9A-F]{8}$`), asks: [{query: 'gateway', field: 'bizOrderNo'}, {query: 'pay', field: 'bizOrderNo'}]},
  {shape: new RegExp(`^E${STAMP}[0-9A-F]{8}$`), asks: [{query: 'pay', field: 'bizOrderNo'}]},
  {shape: new RegExp(`^RF${STAMP}[0-9A-F]{8}$`), asks: [{query: 'refund', field: 'bizRefundNo'}, {query: 'refund', field: 'refundNo'}]},
  {shape: new RegExp(`^ER${STAMP}[0-9A-F]{8}$`), asks: [{query: 'refund', field: 'bizRefundNo'}]},
  {shape: new RegExp(`^AL${STAMP}[0-9A-F]{8}$`), asks: [{query: 'alloc', field: 'bizAllocNo'}]},
]
// a bizTransferNo asks by channel: its shapes are kept apart
const TRANSFER_SHAPES = [new RegExp(`^TF${STAMP}[0-9A-F]{8}$`), /^BT[0-9a-f]{30}$/]

/** A bizTransferNo's lookups: the channel given, or each transfer channel. */
const byChannel = (channel?: string): Ask[] => (channel ? [channel] : [...TRANSFER_CHANNELS]).map((c) => ({query: 'transfer', field: 'bizTransferNo', channel: c}))

/** The rest, fewest calls first, the merchant's number of each kind before the platform's. */
const REST: Ask[] = [
  {query: 'pay', field: 'bizOrderNo'},
  {query: 'pay', field: 'orderNo'},
  {query: 'gateway', field: 'bizOrderNo'},
  {query: 'gateway', field: 'orderNo'},
  {query: 'refund', field: 'bizRefundNo'},
  {query: 'refund', field: 'refundNo'},
  {query: 'alloc', field: 'bizAllocNo'},
  {query: 'alloc', field: 'allocNo'},
  {query: 'transfer', field: 'transferNo'},
]

const same = (a: Ask, b: Ask) => a.query === b.query && a.field === b.field && ('channel' in a ? a.channel : '') === ('channel' in b ? b.channel : '')

/**
 * Every lookup for a number, the likely ones (by its shape) first, then the rest in the order
 * that costs fewest calls. `likely` is how many of them its shape suggests.
 */
export function asksFor(number: string, channel?: string): {asks: Ask[]; likely: number} {
  const likely = [...(SHAPES.find(({shape}) => shape.test(number))?.asks ?? []), ...(TRANSFER_SHAPES.some((shape) => shape.test(number)) ? byChannel(channel) : [])]
  // with --channel a bizTransferNo costs one call like any other
  const rest = channel ? [...REST, ...byChannel(channel)] : [...REST, ...byChannel()]
  return {asks: [...likely, ...rest.filter((ask) => !likely.some((other) => same(ask, other)))], likely: likely.length}
}

/** When the platform made a number of the sandbox's shapes (its STAMP), if it is one. */
export function stampOf(number: string): Date | undefined {
  const match = /^(?:DP|T|GW|GT|RF|TR|DA)(\d{14})\d{6,7}$/.exec(number)
  if (!match) return undefined
  const [, s] = match
  return parseGmt8(`${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)} ${s.slice(8, 10)}:${s.slice(10, 12)}:${s.slice(12, 14)}`)
}

/**
 * A payment order the sandbox created directly (DP...), not as the trade of a gateway order:
 * pay and gateway orders share one bizOrderNo space (notes §4), so no gateway order holds its
 * bizOrderNo and asking for one would cost a call to learn nothing.
 */
export const isDirectPayment = (orderNo: string) => new RegExp(`^DP${STAMP}\\d{6}$`).test(orderNo)
