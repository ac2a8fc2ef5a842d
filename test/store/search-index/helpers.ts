// A real SQLite file in a temp dir, filled with savePages, for the search tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { BackendError } from '../../../src/model/errors.js';
import { SEARCH_TERMS_MAX_CHARS, SEARCH_TERMS_MAX_WORDS } from '../../../src/model/limits.js';
import { savePages } from '../../../src/store/pages.js';
import { Store } from '../../../src/store/store.js';
import { type PageWrite } from '../../../src/model/crawl-writes.js';

export const HOST = '127.0.0.1:18111';
export const BASE = `http://${HOST}`;

export function page(path: string, over: Partial<PageWrite> = {}): PageWrite {
  return {
    url: `${BASE}${path}`,
    host: HOST,
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title: '',
    language: 'en',
    tags: ['public'],
    superwords: [],
    content: '',
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: [],
    ...over,
  };
}

export interface TempStore {
  store: Store;
  dir: string;
  close(): void;
}

export function tempStore(pages: PageWrite[] = []): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'svc-search-'));
  const store = new Store(join(dir, 'svc.db'));
  if (pages.length) savePages(store, pages);
  return {
    store,
    dir,
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Both full-text indexes are sound (FTS5 'integrity-check') and hold exactly the searchable pages: their
 * docsize tables list the same rowids as pages with indexed = 1 and show_in_search = 1. (The check against
 * the content table, rank 1, does not apply: by design not every row of pages is in the index.)
 */
export function integrityCheck(store: Store): void {
  store.db.prepare(`INSERT INTO pages_fts(pages_fts) VALUES ('integrity-check')`).run();
  store.db.prepare(`INSERT INTO pages_title_fts(pages_title_fts) VALUES ('integrity-check')`).run();
  const ids = (sql: string) => (store.db.prepare(sql).pluck().all() as number[]).join(',');
  const searchable = ids('SELECT id FROM pages WHERE indexed = 1 AND show_in_search = 1 ORDER BY id');
  const main = ids('SELECT id FROM pages_fts_docsize ORDER BY id');
  const titles = ids('SELECT id FROM pages_title_fts_docsize ORDER BY id');
  if (main !== searchable || titles !== searchable) {
    throw new Error(`index out of step: searchable pages [${searchable}], pages_fts [${main}], pages_title_fts [${titles}]`);
  }
}

/** Hostile or odd things a user may type; every one must become a valid FTS5 expression (or none). */
export const HOSTILE = [
  '"',
  '""',
  '"unclosed phrase',
  'a"b"c',
  'NEAR(',
  'NEAR(a b, 2)',
  'a NEAR b',
  'AND',
  'OR',
  'NOT',
  'a AND',
  'OR b',
  'NOT NOT NOT',
  'a OR b NOT c',
  '*',
  'a*',
  '*a',
  '-',
  '-a',
  'a -b',
  ':',
  'title:secret',
  '{title}: x',
  '^',
  '^start',
  '(',
  ')',
  '(a OR b) AND (c',
  '+',
  "'; DROP TABLE pages; --",
  '\u0000',
  'a\u0000b',
  '\u0301\u0301',
  '\ud800',
  'emoji 😀 ok',
  '日本語のテキスト',
  // As long and as many words as terms may be (longer ones are refused: OVERSIZE).
  'x'.repeat(SEARCH_TERMS_MAX_CHARS),
  '𝐀'.repeat(SEARCH_TERMS_MAX_CHARS / 2),
  'word '.repeat(SEARCH_TERMS_MAX_WORDS),
  '"a" "b" "c" "d" ""  " "',
];

/** Terms over the limits, each refused (invalid_input) with the limit named: the message of each, in order. */
export const OVERSIZE: [string, string][] = [
  ['x'.repeat(10_000), 'terms: must be at most 1000 characters (got 10000)'],
  ['𝐀'.repeat(3_000), 'terms: must be at most 1000 characters (got 6000)'],
  ['word '.repeat(2_000), 'terms: must be at most 1000 characters (got 10000)'],
  ['word '.repeat(33), 'terms: must be at most 32 words (got 33)'],
];

/** Runs fn, expects it to throw an invalid_input BackendError, and returns its message. */
export function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).code).toBe('invalid_input');
    return (err as Error).message;
  }
  throw new Error('expected invalid_input');
}
