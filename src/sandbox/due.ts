// What falls due when (orders by their expiredTime): a min-heap, so the sweep that runs every
// second looks at what is due, not at every open order (their number grows with the orders).
export class DueQueue {
  private readonly heap: {at: number; key: string}[] = []

  add(key: string, at: number): void {
    const {heap} = this
    heap.push({at, key})
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1
      if (heap[parent].at <= heap[i].at) break
      ;[heap[parent], heap[i]] = [heap[i], heap[parent]]
      i = parent
    }
  }

  /** Removes and returns the keys due at `now` (at or before it), earliest first. */
  takeDue(now: number): string[] {
    const due: string[] = []
    while (this.heap.length > 0 && this.heap[0].at <= now) due.push(this.pop())
    return due
  }

  private pop(): string {
    const {heap} = this
    const top = heap[0]
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      for (let i = 0; ; ) {
        const left = 2 * i + 1
        const smallest = left + 1 < heap.length && heap[left + 1].at < heap[left].at ? left + 1 : left
        if (smallest >= heap.length || heap[i].at <= heap[smallest].at) break
        ;[heap[smallest], heap[i]] = [heap[i], heap[smallest]]
        i = smallest
      }
    }
    return top.key
  }
}
