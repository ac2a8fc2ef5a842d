// The pages a crawl found and has not fetched yet, kept compact: walking a large site breadth first queues up to
// about half its pages at once, and as JavaScript strings in objects each costs ~100 bytes of heap. Here each is
// its length and UTF-8 bytes in buffers of 1 MB, outside the JavaScript heap; a buffer goes once read through.
// Exact for any URL the crawl keeps (a URL's text never holds a lone surrogate).

const CHUNK = 1024 * 1024;

export class UrlQueue {
  private chunks: Buffer[] = [];
  /** Per chunk: where its last URL ends. */
  private ends: number[] = [];
  /** Where the next URL is read in chunks[0]. */
  private readAt = 0;
  private count = 0;

  /** Waiting, not yet handed out. */
  get size(): number {
    return this.count;
  }

  push(url: string): void {
    const len = Buffer.byteLength(url, 'utf8');
    let last = this.chunks.length - 1;
    if (last < 0 || this.ends[last]! + 4 + len > this.chunks[last]!.length) {
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK, 4 + len)));
      this.ends.push(0);
      last++;
    }
    const chunk = this.chunks[last]!;
    const at = this.ends[last]!;
    chunk.writeUInt32LE(len, at);
    chunk.write(url, at + 4, 'utf8');
    this.ends[last] = at + 4 + len;
    this.count++;
  }

  /** The oldest waiting URL, or undefined when none waits. */
  shift(): string | undefined {
    if (this.count === 0) return undefined;
    if (this.readAt >= this.ends[0]!) {
      this.chunks.shift();
      this.ends.shift();
      this.readAt = 0;
    }
    const chunk = this.chunks[0]!;
    const len = chunk.readUInt32LE(this.readAt);
    const url = chunk.toString('utf8', this.readAt + 4, this.readAt + 4 + len);
    this.readAt += 4 + len;
    if (--this.count === 0) this.takeAll();
    return url;
  }

  /** Up to n of the oldest waiting URLs, oldest first, left waiting. */
  peek(n: number): string[] {
    const out: string[] = [];
    let at = this.readAt;
    for (let c = 0; c < this.chunks.length && out.length < n && out.length < this.count; c++) {
      const chunk = this.chunks[c]!;
      const end = this.ends[c]!;
      for (; at < end && out.length < n; ) {
        const len = chunk.readUInt32LE(at);
        out.push(chunk.toString('utf8', at + 4, at + 4 + len));
        at += 4 + len;
      }
      at = 0;
    }
    return out;
  }

  /** Everything still waiting; the queue is empty afterwards. */
  takeAll(): string[] {
    const rest: string[] = [];
    while (this.count > 0) rest.push(this.shift()!);
    this.chunks = [];
    this.ends = [];
    this.readAt = 0;
    return rest;
  }
}
