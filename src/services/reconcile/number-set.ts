// The ledger's numbers, kept compactly: each as a 64-bit hash (8 bytes, however long the number)
// in an open-addressed table, so a million of them cost about 10 MB wherever the file is read.
// Membership is by hash: two numbers sharing 64 bits (about 3 chances in 10^8 for a million
// rows) would look like one, so a number the walk reports as a duplicate is checked by its text.

/** A table never fuller than this: linear probing stays short. */
const MAX_LOAD = 0.8
const FIRST_CAPACITY = 1024

/** Two independent 32-bit lanes over the UTF-16 units, each finished with an avalanche. */
function hash64(text: string): [number, number] {
  let a = 0x811c9dc5
  let b = 0x9747b28c ^ text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x5bd1e995)
    b ^= b >>> 15
  }
  return [mix(a ^ Math.imul(b, 0x27d4eb2d)), mix(b)]
}

function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

export class NumberSet {
  /** Pairs of 32-bit halves; (0, 0) is an empty slot. */
  private slots = new Uint32Array(FIRST_CAPACITY * 2)
  private capacity = FIRST_CAPACITY
  size = 0

  /** Adds the number; false when it was there already. */
  add(text: string): boolean {
    const [high, low] = hash64(text)
    return this.insert(high, low === 0 && high === 0 ? 1 : low)
  }

  has(text: string): boolean {
    const [high, hashed] = hash64(text)
    const low = hashed === 0 && high === 0 ? 1 : hashed
    for (let at = this.home(high); ; at = (at + 1) % this.capacity) {
      const h = this.slots[at * 2]
      const l = this.slots[at * 2 + 1]
      if (h === 0 && l === 0) return false
      if (h === high && l === low) return true
    }
  }

  /**
   * Sizes the table for about `count` numbers now, while it holds few: one allocation instead of
   * a series of ever larger ones, each left to the garbage collector (a million numbers would
   * leave some 20 MB of them).
   */
  expect(count: number): void {
    const capacity = Math.ceil(count / MAX_LOAD)
    if (capacity <= this.capacity) return
    this.resize(capacity)
  }

  /** Bytes the table holds. */
  get bytes(): number {
    return this.slots.byteLength
  }

  private home(high: number): number {
    return Math.floor((high / 4294967296) * this.capacity)
  }

  private insert(high: number, low: number): boolean {
    for (let at = this.home(high); ; at = (at + 1) % this.capacity) {
      const h = this.slots[at * 2]
      const l = this.slots[at * 2 + 1]
      if (h === high && l === low) return false
      if (h === 0 && l === 0) {
        this.slots[at * 2] = high
        this.slots[at * 2 + 1] = low
        if (++this.size > this.capacity * MAX_LOAD) this.grow()
        return true
      }
    }
  }

  /** One and a half times the room: a million numbers take 10 to 15 MB, not the 16 of a doubling past 2^20. */
  private grow(): void {
    this.resize(Math.ceil(this.capacity * 1.5))
  }

  private resize(capacity: number): void {
    const old = this.slots
    this.capacity = capacity
    this.slots = new Uint32Array(this.capacity * 2)
    this.size = 0
    for (let at = 0; at < old.length; at += 2) if (old[at] !== 0 || old[at + 1] !== 0) this.insert(old[at], old[at + 1])
  }
}
