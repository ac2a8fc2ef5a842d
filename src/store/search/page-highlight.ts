// The highlight of a search hit's page, as both stores show it (highlight.ts finds and cuts it), and the same
// highlight found in a page's stored bytes. A manual's pages are long and rarely plain ASCII (a '¶' or a quote mark
// is enough), and turning one into a JavaScript string costs more than the rest of its search; so for a query of
// ASCII words (most queries) the page's UTF-8 is matched as it is, read as one byte a character a chunk at a time
// (latin1-scan.ts), and only the window shown is decoded. Pure: the matches, the window and the HTML are those of the
// decoded text, byte for byte. Whether a page defines the query's identifier (titles.ts definitionPattern) is read
// from its bytes the same way.
import { isAscii } from 'node:buffer';
import type { HighlightWords } from './engine.js';
import { CALL_BEFORE, DEFINITION_NOT_EMPTY, MAX_JOINER, type Definition } from './titles.js';
import { foldWord } from './fold.js';
import { eachLatin1Match, latin1 } from './latin1-scan.js';
import {
  accents,
  bestWindow,
  escapeRegExp,
  foldText,
  makeHighlight,
  matcher,
  MAX_MATCHES,
  type Range,
  type TextView,
  withoutRegion,
  wordsToFind,
} from './highlight.js';

const ASCII = /^[\x00-\x7f]*$/;
/**
 * The first bytes of the letters the tokenizer folds (U+00C0–U+024F: 0xc3–0xc9; U+1E00–U+1EFF: 0xe1, with others
 * of U+1000–U+1FFF), each found by one native byte search: a regular expression over a chunk that holds none of
 * them reads it a character at a time, several times slower.
 */
const FOLDED_LEADS = [0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xe1];
const mayHoldFoldedLetter = (bytes: Buffer) => FOLDED_LEADS.some((x) => bytes.includes(x));
const LETTER_OR_DIGIT = /[\p{L}\p{N}\p{M}]/u;

/** A pattern of any of `forms` as UTF-8 bytes read as Latin-1 (one character a byte). */
function anyOfBytes(forms: Set<string>): string {
  const bytes = [...forms].map((f) => escapeRegExp(Buffer.from(f, 'utf8').toString('latin1')));
  return bytes.length === 1 ? bytes[0]! : `(?:${bytes.join('|')})`;
}

/** Each ASCII character's pattern of bytes (bytePattern), made once. */
const charPatterns = new Map<string, string>();

/** A folded ASCII word as a pattern of UTF-8 bytes read as Latin-1: each letter in both cases and accented. */
function bytePattern(word: string): string {
  let out = '';
  for (const c of word) {
    let pattern = charPatterns.get(c);
    if (pattern === undefined) {
      const forms = new Set([c, c.toUpperCase()]);
      for (const a of accents().get(c) ?? '') forms.add(a);
      pattern = anyOfBytes(forms);
      charPatterns.set(c, pattern);
    }
    out += pattern;
  }
  return out;
}

/** The length in bytes of the UTF-8 character whose first byte is x. */
const charBytes = (x: number) => (x < 0x80 ? 1 : x < 0xe0 ? 2 : x < 0xf0 ? 3 : 4);

/**
 * Whether the character starting at byte i is a letter, digit or mark, as highlight.ts tests a UTF-16 code unit: a
 * character outside the BMP never is there (its halves are no letters), so it is not here.
 */
function wordAt(b: Uint8Array, i: number): boolean {
  if (i < 0 || i >= b.length) return false;
  const x = b[i]!;
  if (x < 0x80) return (x >= 48 && x <= 57) || (x >= 65 && x <= 90) || (x >= 97 && x <= 122);
  if (x >= 0xf0) return false;
  const code =
    x < 0xe0
      ? ((x & 0x1f) << 6) | (b[i + 1]! & 0x3f)
      : ((x & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
  return LETTER_OR_DIGIT.test(String.fromCharCode(code));
}

/** Whether the character ending just before byte i is a letter, digit or mark. */
function wordBefore(b: Uint8Array, i: number): boolean {
  return i > 0 && wordAt(b, startBefore(b, i));
}

/** Where the character ending just before byte i (> 0) starts. */
function startBefore(b: Uint8Array, i: number): number {
  let k = i - 1;
  while (k > 0 && i - k < 4 && (b[k]! & 0xc0) === 0x80) k--;
  return k;
}

/**
 * The bytes decoded at most this many at a time: a string of a piece of them stays a young object (a longer one of
 * two-byte characters lands in V8's large-object space, see latin1-scan.ts).
 */
const DECODE_PIECE = 1 << 14;

/**
 * The UTF-16 code units of the bytes [x, y), both character starts: their decoded length, a piece at a time. The
 * decoder is native and counts about five times faster than a search for the bytes that are no unit of their own.
 */
function unitsBetween(b: Buffer, x: number, y: number): number {
  let units = 0;
  for (let lo = x; lo < y; ) {
    const hi = Math.min(y, charStart(b, lo + DECODE_PIECE));
    units += b.toString('utf8', lo, hi).length;
    lo = hi;
  }
  return units;
}

/** The first character start at or after byte i. */
function charStart(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i]! & 0xc0) === 0x80) i++;
  return i;
}

/**
 * highlight.ts's matcher over a page's bytes, for ASCII words only (null otherwise): the same matches, as byte
 * offsets. The bytes are read as Latin-1 (one character a byte, no decoding), so the regular expression runs over
 * one-byte strings.
 */
function byteMatcher(words: string[], prefix: string | null): ((b: Buffer) => Range[]) | null {
  if (!words.every((w) => ASCII.test(w)) || (prefix !== null && !ASCII.test(prefix))) return null;
  const all = wordsToFind(words, prefix);
  if (!all.length) return () => [];
  const accented = new RegExp(all.map(bytePattern).join('|'), 'g');
  // A chunk with no letter the tokenizer folds: the words as they are, either case (no byte past ASCII is a case
  // of an ASCII letter to /i), which is much the faster search. Both find the same matches there.
  const plain = new RegExp(all.map(escapeRegExp).join('|'), 'gi');
  const pattern = (chunk: Buffer) => (mayHoldFoldedLetter(chunk) ? accented : plain);
  // A letter's accented forms take at most three bytes.
  const longest = 3 * Math.max(...all.map((w) => w.length));
  return (b) => {
    const out: Range[] = [];
    eachLatin1Match(b, pattern, longest, (start, match) => {
      let end = start + match.length;
      if (wordBefore(b, start)) return end;
      if (wordAt(b, end)) {
        if (!prefix) return end;
        const head = decodeRange(b, start, Math.min(b.length, start + 4 * prefix.length)).slice(0, prefix.length);
        if (foldText(head).toLowerCase() !== prefix) return end;
        while (wordAt(b, end)) end += charBytes(b[end]!);
      }
      out.push([start, end]);
      return out.length < MAX_MATCHES && end;
    });
    return out;
  };
}

const NON_ASCII = /[\x80-\xff]/;

/** The bytes [s, e) decoded; from their Latin-1 reading when they are ASCII (no call into the decoder). */
function decodeRange(b: Buffer, s: number, e: number): string {
  const slice = latin1(b, s, e);
  return NON_ASCII.test(slice) ? b.toString('utf8', s, e) : slice;
}

/**
 * The text of a page's bytes as makeHighlight reads it, the matches' byte offsets made UTF-16 offsets: only the
 * bytes around the match the window is anchored on are decoded (enough for every character makeHighlight reads
 * there; anything else decodes the whole page, so the result is always the decoded text's).
 */
function byteView(
  b: Buffer,
  byteMatches: Range[],
  weights: number[],
  length: number,
): { view: TextView; matches: Range[] } {
  // A code unit takes at most three bytes: the window and a match either side are within `reach` of its anchor.
  let longest = 0;
  for (const [s, e] of byteMatches) longest = Math.max(longest, e - s);
  const reach = 3 * (length + longest + 2);
  // The matches in UTF-16 code units, counted on from the page's start (they are in order and apart).
  let counted = 0;
  let units = 0;
  const unitsAt = (offset: number) => {
    units += unitsBetween(b, counted, offset);
    counted = offset;
    return units;
  };
  const matches = byteMatches.map(([s, e]): Range => [unitsAt(s), unitsAt(e)]);
  // The anchor as makeHighlight chooses it.
  const best = bestWindow(matches, weights, length);
  const anchorByte = byteMatches.length ? byteMatches[best]![0] : 0;
  const anchorUnits = byteMatches.length ? matches[best]![0] : 0;
  const lo = charStart(b, Math.max(0, anchorByte - reach));
  const hi = charStart(b, Math.min(b.length, anchorByte + reach));
  const region = b.toString('utf8', lo, hi);
  const from = anchorUnits - unitsBetween(b, lo, anchorByte);
  const to = from + region.length;
  // Past the region the exact length does not matter (the window ends before it): a bound is enough.
  const total = hi === b.length ? to : to + (b.length - hi);
  let whole: string | null = null;
  const decoded = () => (whole ??= b.toString('utf8'));
  return {
    matches,
    view: {
      length: total,
      char: (i) => (i >= from && i < to ? region[i - from] : decoded()[i]),
      slice: (x, y) => (x >= from && y <= to ? region.slice(x - from, y - from) : decoded().slice(x, y)),
    },
  };
}

/**
 * The highlight of each hit: the marked words found in the page's text (less the region its meta lists as
 * contentNoHighlight), the window centred on a match of the query's rarest word (it weighs as many matches as a
 * window can hold). The text is a string, or the page's UTF-8 bytes as stored. Built once per search.
 */
export function pageHighlighter(
  marks: HighlightWords,
): (text: string | Buffer, hidden: string | undefined, length: number) => string {
  const find = matcher(marks.words, marks.prefix);
  const findBytes = byteMatcher(marks.words, marks.prefix);
  const rarest = new Set(marks.rarest);
  const weightOf = (word: string) => (rarest.has(foldWord(word)) ? 100 : 1);
  return (text, hidden, length) => {
    if (typeof text !== 'string') {
      if (findBytes && !hidden) {
        const bytes = text;
        const found = findBytes(bytes);
        const weights = found.map(([s, e]) => weightOf(decodeRange(bytes, s, e)));
        const { view, matches } = byteView(bytes, found, weights, length);
        return makeHighlight(view, matches, length, (_, i) => weights[i]!);
      }
      // A page of plain ASCII is its own Latin-1 reading.
      text = text.toString(isAscii(text) ? 'latin1' : 'utf8');
    }
    let shown = { text, matches: find(text) };
    if (hidden) shown = withoutRegion(shown.text, shown.matches, hidden);
    return makeHighlight(shown.text, shown.matches, length, (r) => weightOf(shown.text.slice(r[0], r[1])));
  };
}

/** The letters other than ASCII that Unicode's case folding makes an ASCII one (definitionPattern's `iu`). */
const FOLDS_TO_ASCII: Record<string, string> = { k: '\u212a', s: '\u017f' };
const NAME_CHAR = /[\p{L}\p{N}_]/u;

/** Whether the bytes before byte i end with what comes before a call (titles.ts CALL_BEFORE, all ASCII). */
function callBefore(b: Buffer, i: number): boolean {
  let j = i;
  while (j > 0 && (b[j - 1] === 0x20 || b[j - 1] === 0x09)) j--;
  return j > 0 && CALL_OPENERS.has(b[j - 1]!);
}
/** CALL_BEFORE's characters before the spaces, as bytes. */
const CALL_OPENERS = new Set([...CALL_BEFORE.slice(1, CALL_BEFORE.indexOf(']'))].map((c) => c.charCodeAt(0)));

/** Whether the character (a whole code point) ending just before byte i is a letter, digit or underscore. */
function nameCharBefore(b: Buffer, i: number): boolean {
  return i > 0 && NAME_CHAR.test(b.toString('utf8', startBefore(b, i), i));
}

/** DEFINITION_NOT_EMPTY at the start of a text. */
const NOT_EMPTY_AT_START = new RegExp(`^${DEFINITION_NOT_EMPTY}`);

/**
 * Whether what follows byte i, a definition's opening parenthesis, is no closing one (DEFINITION_NOT_EMPTY). The
 * bytes are read a little at a time: when what was read passes but would not with a closing parenthesis added, its
 * white space ran to its end, and more is read.
 */
function notEmptyAfter(b: Buffer, i: number): boolean {
  for (let n = 64; ; n *= 4) {
    const text = latin1(b, i, Math.min(b.length, i + n));
    if (!NOT_EMPTY_AT_START.test(text)) return false;
    if (NOT_EMPTY_AT_START.test(`${text})`) || i + n >= b.length) return true;
  }
}

/**
 * Whether a page's bytes hold the definition: for a name of ASCII words, the name (either case), an optional space
 * and a parenthesis are searched in the bytes as they are, and only the bytes around each place found are read for
 * the pattern's look-behind (nameCharBefore, callBefore) and look-ahead (notEmptyAfter); otherwise the page is
 * decoded and the pattern tested.
 */
export function definitionInBytes(definition: Definition): (b: Buffer) => boolean {
  const { pattern, words } = definition;
  if (!words.every((w) => ASCII.test(w))) return (b) => pattern.test(b.toString('utf8'));
  const char = (c: string) => {
    const forms = new Set([c.toLowerCase(), c.toUpperCase()]);
    const more = FOLDS_TO_ASCII[c.toLowerCase()];
    if (more) forms.add(more);
    return anyOfBytes(forms);
  };
  const name = words.map((w) => [...w].map(char).join('')).join(`_{1,${MAX_JOINER}}`);
  const re = new RegExp(`${name} ?\\(`, 'g');
  // A letter takes at most three bytes (K's Kelvin sign), then the joiners, a space and the parenthesis.
  const letters = words.reduce((n, w) => n + w.length, 0);
  const longest = 3 * letters + MAX_JOINER * (words.length - 1) + 2;
  return (b) => {
    let found = false;
    eachLatin1Match(b, re, longest, (start, match) => {
      found = !nameCharBefore(b, start) && !callBefore(b, start) && notEmptyAfter(b, start + match.length);
      return !found && start + 1;
    });
    return found;
  };
}
