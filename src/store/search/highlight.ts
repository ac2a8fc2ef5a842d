// A hit's highlight: the query's words found in the page text, and the window of about `length` characters
// holding the most of them, cut at word boundaries, HTML-escaped, with <em>…</em> around the matches. Pure.
//
// The matching is done here rather than with FTS5's highlight(), which re-runs the whole query (a seek per
// word, and per completion of a last word typed as a prefix) for every hit and marks up the whole page: one
// regular expression over the text costs a fraction of that. Words match as the index's tokenizer matches
// them: whole words, case and (Latin) diacritics folded, the last word also as the start of a longer word.
import { escapeHtml } from '../../lib/escape-html.js';

/** A match: [start, end) offsets in the text. */
export type Range = [number, number];

/** Enough matches to choose a window from; the rest of a huge page is not searched. */
export const MAX_MATCHES = 200;
const ELLIPSIS = '…';
/** The letters the tokenizer folds to another letter (Latin with diacritics), as foldChar folds them. */
const ACCENTED_RANGES: [number, number][] = [
  [0xc0, 0x24f],
  [0x1e00, 0x1eff],
];
const ACCENTED_CLASS = '[\\u00c0-\\u024f\\u1e00-\\u1eff]';
const ACCENTED = new RegExp(ACCENTED_CLASS, 'g');
const FOLDABLE = new RegExp(ACCENTED_CLASS);
const foldCache = new Map<string, string>();

/** One character folded as the tokenizer folds it, keeping the length (so offsets stay valid). */
function foldChar(c: string): string {
  let f = foldCache.get(c);
  if (f === undefined) {
    const base = c.normalize('NFD')[0]!.toLowerCase();
    f = base.length === 1 ? base : c;
    if (foldCache.size < 10_000) foldCache.set(c, f);
  }
  return f;
}

/** A short text folded character by character (same length). */
export const foldText = (text: string) => text.replace(ACCENTED, foldChar);

/** Each folded letter and the accented letters that fold to it ('e' → 'èéêë…'), built on first use. */
let accentsOf: Map<string, string> | null = null;
export function accents(): Map<string, string> {
  if (!accentsOf) {
    accentsOf = new Map();
    for (const [lo, hi] of ACCENTED_RANGES) {
      for (let code = lo; code <= hi; code++) {
        const c = String.fromCharCode(code);
        const f = foldChar(c);
        if (f !== c) accentsOf.set(f, (accentsOf.get(f) ?? '') + c);
      }
    }
  }
  return accentsOf;
}

const escapeClass = (s: string) => s.replace(/[\\\]^-]/g, '\\$&');

/**
 * A folded word as a pattern of the unfolded text: each letter also as the accented letters that fold to it. The
 * text is matched as it is, so no folded copy of a long page is made.
 */
function wordPattern(word: string): string {
  const map = accents();
  let out = '';
  for (const c of word) {
    const more = map.get(c);
    out += more ? `[${escapeClass(c + more)}]` : escapeRegExp(c);
  }
  return out;
}

function isWordChar(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (Number.isNaN(code)) return false;
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return /[\p{L}\p{N}\p{M}]/u.test(text[i]!);
}

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The words and the prefix a matcher looks for, once each, longest first (so a longer word wins an alternation). */
export const wordsToFind = (words: string[], prefix: string | null): string[] =>
  [...new Set(prefix ? [...words, prefix] : words)].filter(Boolean).sort((a, b) => b.length - a.length);

/**
 * A finder of where `words` (already folded: lower case, no diacritics) occur in a text as whole words, and
 * of words that start with `prefix`: at most MAX_MATCHES, in text order. Built once per search, used per hit.
 */
export function matcher(words: string[], prefix: string | null): (text: string) => Range[] {
  const all = wordsToFind(words, prefix);
  if (!all.length) return () => [];
  const accented = new RegExp(all.map(wordPattern).join('|'), 'gi');
  // A text with no letter to fold: the words as they are, which a regular expression finds much faster.
  const plain = new RegExp(all.map(escapeRegExp).join('|'), 'gi');
  return (text) => {
    if (!text) return [];
    const re = FOLDABLE.test(text) ? accented : plain;
    const out: Range[] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m && out.length < MAX_MATCHES; m = re.exec(text)) {
      const start = m.index;
      let end = start + m[0].length;
      if (isWordChar(text, start - 1)) continue;
      if (isWordChar(text, end)) {
        // Part of a longer word: a match only as the prefix, if the longer word starts with it.
        if (!prefix || foldText(text.slice(start, start + prefix.length)).toLowerCase() !== prefix) continue;
        while (isWordChar(text, end)) end++;
        re.lastIndex = end;
      }
      out.push([start, end]);
    }
    return out;
  };
}

export function findMatches(text: string, words: string[], prefix: string | null): Range[] {
  return matcher(words, prefix)(text);
}

/**
 * The text without the first occurrence of `hidden` (text that is searchable but never shown), and the
 * matches moved to fit; matches inside it go, a match cut by its edge keeps what is left.
 */
export function withoutRegion(text: string, matches: Range[], hidden: string): { text: string; matches: Range[] } {
  const at = hidden ? text.indexOf(hidden) : -1;
  if (at === -1) return { text, matches };
  const end = at + hidden.length;
  const moved: Range[] = [];
  for (const [s, e] of matches) {
    if (e <= at) moved.push([s, e]);
    else if (s >= end) moved.push([s - hidden.length, e - hidden.length]);
    else if (s < at) moved.push([s, at]);
    else if (e > end) moved.push([at, e - hidden.length]);
  }
  return { text: text.slice(0, at) + text.slice(end), matches: moved };
}

/** A text as makeHighlight reads it: a string, or a view of a page's bytes that decodes only what is read. */
export interface TextView {
  readonly length: number;
  /** The UTF-16 code unit at i as a string (undefined outside the text), as `text[i]`. */
  char(i: number): string | undefined;
  slice(start: number, end: number): string;
}

const stringView = (text: string): TextView => ({
  length: text.length,
  char: (i) => text[i],
  slice: (a, b) => text.slice(a, b),
});

/**
 * The match a highlight's window starts from: the first of the run of matches within `length` of most weight
 * (`w`, each match's; a match of the query's rarest word weighs most).
 */
export function bestWindow(matches: Range[], w: number[], length: number): number {
  let best = 0;
  let bestCount = 0;
  let sum = 0;
  for (let i = 0, j = -1; i < matches.length; i++) {
    if (j < i) {
      j = i;
      sum = w[i]!;
    }
    while (j + 1 < matches.length && matches[j + 1]![1] - matches[i]![0] <= length) sum += w[++j]!;
    if (sum > bestCount) {
      bestCount = sum;
      best = i;
    }
    sum -= w[i]!;
  }
  return best;
}

/** Escaped, then each run of whitespace folded to one space (after escaping, as it always was). */
const escapeFolded = (s: string) => escapeHtml(s).replace(/\s+/g, ' ');
const isSpace = (c: string | undefined) =>
  c === undefined || c === ' ' || c === '\n' || c === '\t' || c === '\r' || /\s/.test(c);

/**
 * About `length` characters of the text around its run of matches of most weight (by default the densest), as safe HTML with the matches in
 * <em>; whitespace collapsed. Without any match (the page matched on its title or tags), the start of the text.
 */
export function makeHighlight(
  shown: string | TextView,
  matches: Range[],
  length: number,
  weight: (r: Range, i: number) => number = () => 1,
): string {
  const text = typeof shown === 'string' ? stringView(shown) : shown;
  if (!text.length) return '';
  let start = 0;
  if (matches.length) {
    const anchor = matches[bestWindow(matches, matches.map(weight), length)]![0];
    // Some context before the first match, started at a word boundary but never past the match; near the end
    // of the text, more context before, so the window stays full.
    start = Math.max(0, Math.min(anchor - Math.floor(length / 4), text.length - length));
    while (start > 0 && start < anchor && !isSpace(text.char(start - 1))) start++;
    const cut = matches.find(([s, e]) => s < start && e > start);
    if (cut) start = cut[0];
  }
  let end = Math.min(text.length, start + length);
  const atEnd = end >= text.length;
  if (!atEnd) {
    let e = end;
    while (e > start && !isSpace(text.char(e)) && !isSpace(text.char(e - 1))) e--;
    if (e - start > length / 2) end = e;
    const cut = matches.find(([s, e2]) => s < end && e2 > end);
    if (cut) end = cut[0] > start ? cut[0] : cut[1];
  }
  let html = '';
  let pos = start;
  for (const [s, e] of matches) {
    if (e <= start || s >= end) continue;
    const ms = Math.max(s, start);
    const me = Math.min(e, end);
    html += `${escapeFolded(text.slice(pos, ms))}<em>${escapeFolded(text.slice(ms, me))}</em>`;
    pos = me;
  }
  html += escapeFolded(text.slice(pos, end));
  const body = html.trim();
  if (!body) return '';
  return (start > 0 ? ELLIPSIS : '') + body + (atEnd ? '' : ELLIPSIS);
}
