// A first-in first-out queue that lets go of what it has handed out, so a long crawl does not keep every URL it
// ever queued: a target's pages and the link checks both wait in one.
export class FifoQueue<T> {
  private items: T[] = [];
  private head = 0;

  /** Waiting, not yet handed out. */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest waiting item, or undefined when none waits. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++]!;
    // Let the array go once it is mostly drained.
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  /** Up to n of the oldest waiting items, oldest first, left waiting. */
  peek(n: number): T[] {
    return this.items.slice(this.head, this.head + n);
  }

  /** Everything still waiting; the queue is empty afterwards. */
  takeAll(): T[] {
    const rest = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return rest;
  }
}
