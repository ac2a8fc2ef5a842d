// A page's UTF-8 bytes searched with a regular expression, read as Latin-1 (one character a byte) a chunk at a time
// (page-highlight.ts matches a highlight's words and a definition this way). One string of a whole long page (a
// manual's 1 MB API reference) lands in V8's large-object space, and making it cost about twenty times more per byte
// than making strings of SCAN_CHUNK bytes, which live and die in the young generation (4.8 ms against 0.25 ms for
// 944 kB): a search reads ten pages for its hits and up to twenty for a definition.

/** The bytes read as one string. */
export const SCAN_CHUNK = 1 << 16;

/** The bytes [start, end) as their Latin-1 reading (a short range: a chunk, a match, a window's surroundings). */
export const latin1 = (b: Buffer, start: number, end: number): string => b.toString('latin1', start, end);

/**
 * Each match of the global `pattern` in the bytes read as Latin-1, in order, exactly as one search of the whole
 * reading finds them, provided that no match is longer than `longest` bytes and that the pattern reads nothing past
 * its match (no lookahead, no `$`). `pattern` may be chosen per chunk (from the chunk's bytes), when every choice
 * finds the same matches there. `visit` gets a match's first byte and its text, and answers the byte the search goes on
 * from (past the match's start), or false to stop.
 */
export function eachLatin1Match(
  b: Buffer,
  pattern: RegExp | ((chunk: Buffer) => RegExp),
  longest: number,
  visit: (start: number, match: string) => number | false,
): void {
  let from = 0;
  for (let lo = 0; lo < b.length; lo += SCAN_CHUNK) {
    const hi = Math.min(b.length, lo + SCAN_CHUNK);
    if (from >= hi) continue;
    // A match starting in [lo, hi) ends within `longest` bytes after hi: this chunk finds it whole, and the next one
    // starts at hi, so none is found twice.
    const end = Math.min(b.length, hi + longest);
    const text = latin1(b, lo, end);
    const re = typeof pattern === 'function' ? pattern(b.subarray(lo, end)) : pattern;
    re.lastIndex = Math.max(0, from - lo);
    for (let m = re.exec(text); m && lo + m.index < hi; m = re.exec(text)) {
      const next = visit(lo + m.index, m[0]);
      if (next === false) return;
      from = next;
      if (from >= hi) break;
      re.lastIndex = from - lo;
    }
  }
}
