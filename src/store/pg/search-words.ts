// The words as written of the pages a batch writes, added to search_words (migration 75): the candidates of a typo's
// correction on PostgreSQL, whose vector holds stems only (store/search/near-words.ts). Split and folded here as the
// SQLite index folds its words (letters and digits, case and diacritics folded), each word sent once a batch: the
// database probes only the words it has not been sent yet by this writer (SeenWords), and parses nothing again (its
// own parse of the text, in a trigger, doubled the time a crawl batch took).
import type { PageWrite } from '../../model/crawl-writes.js';
import { foldWord } from '../search/fold.js';
import type { Sql } from '../sql.js';
import { VECTOR_CONTENT_CHARS } from './migrations/001-schema-with-tsvector-search.js';

/** A word longer than this is no word a person mistypes (a hash, an encoded blob). */
const MAX_WORD = 64;
const NON_ASCII = /[^\x00-\x7f]/;
const SPLIT_ASCII = /[^a-z0-9]+/;
const SPLIT = /[^\p{L}\p{N}\p{M}]+/u;
const STARTS_WITH_LETTER = /^\p{L}/u;

/** The distinct folded words of the searchable pages among `pages`, starting with a letter. */
export function pageWords(pages: readonly PageWrite[], pathWords: (url: string) => string): string[] {
  // Distinct tokens first (split natively on the lower-cased text), then folded: most tokens repeat.
  const tokens = new Set<string>();
  for (const p of pages) {
    if (!p.indexed || !p.showInSearch) continue;
    const text = `${p.title} ${p.superwords.join(' ')} ${pathWords(p.url)} ${p.content.slice(0, VECTOR_CONTENT_CHARS)}`;
    const lower = text.toLowerCase();
    for (const t of lower.split(NON_ASCII.test(lower) ? SPLIT : SPLIT_ASCII)) tokens.add(t);
  }
  const out = new Set<string>();
  for (const t of tokens) {
    if (!t || t.length > MAX_WORD) continue;
    const w = foldWord(t);
    if (STARTS_WITH_LETTER.test(w)) out.add(w);
  }
  return [...out];
}

/** A crawl writer's memory of the words it has sent: a word is sent once a writer, not once a batch. */
export class SeenWords {
  private seen = new Set<string>();
  /** Forgets all past this many words (memory stays bounded; a word sent again is one more probe). */
  static readonly MAX = 200_000;

  /** The words not sent yet, remembered as sent (a writer whose batch failed writes nothing more). */
  unseen(words: readonly string[]): string[] {
    if (this.seen.size > SeenWords.MAX) this.seen.clear();
    const out = words.filter((w) => !this.seen.has(w));
    for (const w of out) this.seen.add(w);
    return out;
  }
}

/** Adds the words not yet listed (one statement; sorted, so two writers insert in the same order). */
export async function addSearchWords(sql: Sql, words: readonly string[]): Promise<void> {
  if (!words.length) return;
  await sql.run(
    'INSERT INTO search_words (word) SELECT w FROM json_array_elements_text(?::json) AS w ORDER BY 1 ON CONFLICT DO NOTHING',
    [JSON.stringify([...words].sort())],
  );
}
