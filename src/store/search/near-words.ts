// Typo tolerance from the index's own vocabulary: the word of the index nearest to a word that is in no page.
// Pure: the store's engine lists the candidates (words of the index that begin as the typed word does).
//
// A typo is one or two edits (a letter added, dropped, changed, or two neighbours swapped): one for a word of up to
// 7 letters, two for a longer one; a word of fewer than MIN_CORRECTED letters is not corrected (too many words are
// one edit from it). Candidates share the typed word's first CANDIDATE_PREFIX letters: a slip there is rarer, and
// the index then reads one short range of its vocabulary, so a correction costs a bounded lookup.

export const MIN_CORRECTED = 4;
export const CANDIDATE_PREFIX = 2;
/** At most this many candidate words are read and compared. */
export const MAX_CANDIDATES = 5000;

/** The edits a word of this length may have. */
export function maxEdits(word: string): number {
  const n = [...word].length;
  return n < MIN_CORRECTED ? 0 : n <= 7 ? 1 : 2;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits), or max + 1 once over `max`. */
export function editDistance(a: string, b: string, max: number): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[t.length]!;
}

export interface VocabularyWord {
  term: string;
  /** Pages the word is on; absent when the store lists its words without counting them (PostgreSQL). */
  pages?: number;
}

/** At most this many of the nearest candidates have their pages counted (a count per word where it is not known). */
export const MAX_NEAR = 32;

/**
 * The candidates within the edits `word` (folded) may have, nearest first, at most MAX_NEAR: those a correction
 * chooses from, once their pages are known.
 */
export function withinEdits(word: string, candidates: readonly VocabularyWord[]): VocabularyWord[] {
  const max = maxEdits(word);
  if (!max) return [];
  const near: { c: VocabularyWord; d: number }[] = [];
  for (const c of candidates) {
    if (c.term === word || !/^\p{L}/u.test(c.term)) continue;
    const d = editDistance(word, c.term, max);
    if (d <= max) near.push({ c, d });
  }
  return near
    .sort((a, b) => a.d - b.d || (b.c.pages ?? 0) - (a.c.pages ?? 0))
    .slice(0, MAX_NEAR)
    .map((n) => n.c);
}

/**
 * The candidate nearest to `word` (folded) within its edits, the one on most pages among equals; `minPages`: only
 * words on at least that many pages (a candidate of unknown pages counts as on none). Null when none is near enough.
 */
export function nearestWord(word: string, candidates: readonly VocabularyWord[], minPages = 1): VocabularyWord | null {
  const max = maxEdits(word);
  if (!max) return null;
  let best: VocabularyWord | null = null;
  let bestDistance = max + 1;
  for (const c of candidates) {
    const pages = c.pages ?? 0;
    if (c.term === word || pages < minPages || !/^\p{L}/u.test(c.term)) continue;
    const d = editDistance(word, c.term, Math.min(max, bestDistance));
    if (d < bestDistance || (d === bestDistance && best && pages > (best.pages ?? 0))) {
      if (d > max) continue;
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
