// The URLs a crawl has seen, kept compact: a crawl of a million pages remembers a million URLs until it ends, and as
// JavaScript strings in a Set each costs ~100 bytes of heap that every full garbage collection walks again. Here
// each is its UTF-8 bytes in one growing buffer plus a few bytes of index, outside the JavaScript heap. Exact:
// a hash only picks the slot, the bytes decide.

const EMPTY = 0;

/** FNV-1a over the string's UTF-16 code units (no encoding needed to hash). */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class UrlSet {
  /** The URLs' bytes, one after the other. */
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** Per URL (in the order added): where its bytes start; starts[count] is where the next one goes. */
  private starts = new Float64Array(1024);
  private hashes = new Uint32Array(1024);
  /** Open addressing: the URL's number + 1 in its slot, EMPTY where none. */
  private slots = new Uint32Array(2048);
  private count = 0;
  /** Where a looked-up URL's bytes are written to be compared. */
  private scratch = Buffer.allocUnsafe(4096);

  get size(): number {
    return this.count;
  }

  has(url: string): boolean {
    return this.find(url, hashOf(url)) >= 0;
  }

  add(url: string): this {
    const hash = hashOf(url);
    const slot = this.find(url, hash);
    if (slot >= 0) return this;
    const len = Buffer.byteLength(url, 'utf8');
    this.reserve(len);
    const n = this.count++;
    this.bytes.write(url, this.used, 'utf8');
    this.used += len;
    this.starts[n + 1] = this.used;
    this.hashes[n] = hash;
    this.slots[-slot - 1] = n + 1;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return this;
  }

  /** The slot holding url (≥ 0), or -(the free slot where it would go) - 1. */
  private find(url: string, hash: number): number {
    const mask = this.slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = this.slots[i]!;
      if (entry === EMPTY) return -i - 1;
      const n = entry - 1;
      if (this.hashes[n] === hash && this.holds(n, url)) return i;
    }
  }

  /**
   * Whether URL number n is url. Most URLs are ASCII, one byte per code unit: those are compared code unit to byte
   * here, with no encoding (this runs for every link of every page); any other is encoded and compared.
   */
  private holds(n: number, url: string): boolean {
    const start = this.starts[n]!;
    const length = this.starts[n + 1]! - start;
    if (length < url.length) return false;
    const bytes = this.bytes;
    if (length === url.length) {
      // Equal lengths: equal only when url is ASCII (any other code unit takes more than one byte), byte for byte.
      for (let i = 0; i < length; i++) {
        const unit = url.charCodeAt(i);
        if (unit >= 0x80 || unit !== bytes[start + i]) return false;
      }
      return true;
    }
    const encoded = this.encode(url);
    return encoded === length && bytes.compare(this.scratch, 0, encoded, start, start + length) === 0;
  }

  /** Writes url's bytes into the scratch buffer; returns their length. */
  private encode(url: string): number {
    const len = Buffer.byteLength(url, 'utf8');
    if (len > this.scratch.length) this.scratch = Buffer.allocUnsafe(len * 2);
    return this.scratch.write(url, 0, 'utf8');
  }

  /** Room for one more URL of len bytes. */
  private reserve(len: number): void {
    if (this.used + len > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + len));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    if (this.count + 2 > this.starts.length) {
      const starts = new Float64Array(this.starts.length * 2);
      starts.set(this.starts);
      this.starts = starts;
      const hashes = new Uint32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
  }

  private rehash(size: number): void {
    const slots = new Uint32Array(size);
    const mask = size - 1;
    for (let n = 0; n < this.count; n++) {
      let i = this.hashes[n]! & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = n + 1;
    }
    this.slots = slots;
  }
}
