// Cuts a hit's highlight out of its content as FTS5's highlight() marked it. Pure: no I/O.
//
// FTS5 does the matching (same tokenizer, same folding as the query), wrapping each matched token in the two
// control characters below. Here we pick the window of about `length` characters holding the most matches,
// cut it at word boundaries, HTML-escape the text and turn the marks into <em>…</em>.

export const MARK_START = '\u0001';
export const MARK_END = '\u0002';
const ELLIPSIS = '…';

interface Match {
  /** Offsets in the marked string: of the start mark, and just past the end mark. */
  start: number;
  end: number;
}

function findMatches(marked: string): Match[] {
  const out: Match[] = [];
  let i = marked.indexOf(MARK_START);
  while (i !== -1) {
    const j = marked.indexOf(MARK_END, i + 1);
    if (j === -1) break;
    out.push({ start: i, end: j + 1 });
    i = marked.indexOf(MARK_START, j + 1);
  }
  return out;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The text without marks, HTML-escaped, with balanced <em> around the marked runs; whitespace collapsed. */
function render(slice: string): { html: string; chars: number } {
  let html = '';
  let chars = 0;
  let open = false;
  for (const piece of slice.split(/([\u0001\u0002])/)) {
    if (piece === MARK_START) {
      if (!open) html += '<em>';
      open = true;
    } else if (piece === MARK_END) {
      if (open) html += '</em>';
      open = false;
    } else if (piece) {
      const text = piece.replace(/\s+/g, ' ');
      chars += text.length;
      html += escapeHtml(text);
    }
  }
  if (open) html += '</em>';
  return { html, chars };
}

/** Removes the first occurrence of `hidden` (text that is searchable but never shown) from a marked string. */
export function withoutRegion(marked: string, hidden: string): string {
  if (!hidden) return marked;
  const plain = marked.replace(/[\u0001\u0002]/g, '');
  const at = plain.indexOf(hidden);
  if (at === -1) return marked;
  // Map plain offsets back to marked offsets by walking past the marks.
  const toMarked = (plainOffset: number) => {
    let p = 0;
    for (let m = 0; m < marked.length; m++) {
      if (p === plainOffset && marked[m] !== MARK_END) return m;
      if (marked[m] !== MARK_START && marked[m] !== MARK_END) p++;
    }
    return marked.length;
  };
  const from = toMarked(at);
  const to = toMarked(at + hidden.length);
  // Keep the marks balanced where the cut runs through a match.
  let left = marked.slice(0, from);
  let right = marked.slice(to);
  if (left.lastIndexOf(MARK_START) > left.lastIndexOf(MARK_END)) left += MARK_END;
  const nextEnd = right.indexOf(MARK_END);
  const nextStart = right.indexOf(MARK_START);
  if (nextEnd !== -1 && (nextStart === -1 || nextEnd < nextStart)) right = right.slice(0, nextEnd) + right.slice(nextEnd + 1);
  return left + right;
}

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);

/**
 * About `length` characters of `marked` around its densest run of matches, as safe HTML with matches in <em>.
 * Without any match (the page matched on its title or tags) it is the start of the text.
 */
export function makeHighlight(marked: string, length: number): string {
  if (!marked) return '';
  const matches = findMatches(marked);
  let start = 0;
  if (matches.length) {
    // The window starting at match i holds matches i..j while match j ends within `length` (marks aside).
    let best = 0;
    let bestCount = 0;
    for (let i = 0, j = 0; i < matches.length; i++) {
      if (j < i) j = i;
      while (j + 1 < matches.length && matches[j + 1]!.end - matches[i]!.start - 2 * (j + 1 - i) <= length) j++;
      if (j - i + 1 > bestCount) {
        bestCount = j - i + 1;
        best = i;
      }
    }
    const anchor = matches[best]!.start;
    // Some context before the first match, started at a word boundary, but never past the match itself;
    // near the end of the text, more context before so the window stays full.
    const marksAfter = matches.filter((m) => m.start >= anchor).length * 2;
    start = Math.max(0, Math.min(anchor - Math.floor(length / 4), marked.length - marksAfter - length));
    if (start > 0) {
      const prev = matches.findLast((m) => m.start < start);
      if (prev && prev.end > start) start = prev.start; // do not start inside a match
      else {
        let s = start;
        while (s < anchor && !isSpace(marked[s - 1])) s++;
        start = s < anchor ? s : start;
      }
    }
  }
  // Take enough of the marked text to hold `length` visible characters, then trim to a word boundary.
  const marks = matches.filter((m) => m.start >= start && m.start < start + length * 2).length * 2;
  let end = Math.min(marked.length, start + length + marks);
  const atEnd = end >= marked.length;
  if (!atEnd) {
    let e = end;
    while (e > start && !isSpace(marked[e]) && !isSpace(marked[e - 1])) e--;
    if (e - start > length / 2) end = e;
    // Never cut a match in two.
    const cut = matches.find((m) => m.start < end && m.end > end);
    if (cut) end = cut.start > start ? cut.start : cut.end;
  }
  const { html } = render(marked.slice(start, end));
  const body = html.trim();
  if (!body) return '';
  return (start > 0 ? ELLIPSIS : '') + body + (atEnd ? '' : ELLIPSIS);
}
