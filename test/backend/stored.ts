// A real SQLite store for crawl tests, and reads of what a crawl stored in it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/sqlite/store.js';

export function tempStore(): { store: Store; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-crawler-'));
  return { store: new Store(join(dir, 'svc.db')), dir };
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

export function pageRows(store: Store): Map<string, { url: string; indexed: number; title: string; content: string; meta: string | null; sitemap_lastmod: string | null; crawl_id: number; http_status: number; content_type: string | null; language: string | null; tags: string }> {
  const rows = store.db.prepare('SELECT * FROM pages').all() as { url: string }[];
  return new Map(rows.map((r) => [r.url, r as never]));
}

export function linksOf(store: Store, pageUrl: string): { url: string; element: string }[] {
  return store.db.prepare('SELECT l.url, l.element FROM links l JOIN pages p ON p.id = l.page_id WHERE p.url = ? ORDER BY l.url').all(pageUrl) as { url: string; element: string }[];
}
