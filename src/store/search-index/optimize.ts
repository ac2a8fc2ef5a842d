// Merging the full-text index's segments into one, after a bulk load or a full crawl.
import type { Store } from '../sqlite/store.js';

/**
 * Merges each full-text index into a single segment, so every query reads one b-tree per word. Takes seconds on
 * a large index (about 5 s at 100,000 pages) and holds the write lock meanwhile: run it after a full crawl or a
 * bulk load, off the request path. Searches stay correct without it, only slower while segments pile up.
 */
export function optimizeIndex(store: Store): void {
  store.tx(() => {
    store.db.prepare(`INSERT INTO pages_fts(pages_fts) VALUES ('optimize')`).run();
    store.db.prepare(`INSERT INTO pages_title_fts(pages_title_fts) VALUES ('optimize')`).run();
  });
}
