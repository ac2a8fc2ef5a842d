// A real SQLite store in a temp dir for crawl and search tests, and reads of what a crawl stored in it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PageWrite } from '../../src/model/crawl-writes.js';
import { savePages } from '../../src/store/sqlite/writes.js';
import { Store } from '../../src/store/sqlite/store.js';

export interface TempStore {
  store: Store;
  dir: string;
  /** Closes the store and removes its directory. */
  close(): void;
}

/** A new, migrated SQLite file holding `pages`. */
export function tempStore(pages: PageWrite[] = []): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
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
    throw new Error(
      `index out of step: searchable pages [${searchable}], pages_fts [${main}], pages_title_fts [${titles}]`,
    );
  }
}

export interface OutcomeRow {
  url: string;
  http_status: number;
  reason: string;
  message: string;
  redirects_to: string | null;
  crawl_id: number;
}

export function outcomes(store: Store): Map<string, OutcomeRow> {
  const rows = store.db.prepare('SELECT * FROM link_outcomes').all() as OutcomeRow[];
  return new Map(rows.map((r) => [r.url, r]));
}

export function pageRows(store: Store): Map<
  string,
  {
    url: string;
    indexed: number;
    title: string;
    content: string;
    meta: string | null;
    sitemap_lastmod: string | null;
    crawl_id: number;
    http_status: number;
    content_type: string | null;
    language: string | null;
    tags: string;
  }
> {
  const rows = store.db.prepare('SELECT * FROM pages').all() as { url: string }[];
  return new Map(rows.map((r) => [r.url, r as never]));
}

export function linksOf(store: Store, pageUrl: string): { url: string; element: string }[] {
  return store.db
    .prepare('SELECT l.url, l.element FROM links l JOIN pages p ON p.id = l.page_id WHERE p.url = ? ORDER BY l.url')
    .all(pageUrl) as { url: string; element: string }[];
}
