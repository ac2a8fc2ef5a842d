// Migration 13: a database whose indexes hold stems and identifier parts (migrations 4 to 12) is re-indexed with
// the words as written; searches find the other forms of a word at query time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations/index.js';
import { savePages } from '../../../src/store/sqlite/writes.js';
import { searchPages } from '../../../src/store/search-index/search.js';
import { Store } from '../../../src/store/sqlite/store.js';
import { integrityCheck } from '../../support/stored.js';
import { BASE, searchPage as page } from '../../support/writes.js';

describe('migration 13', () => {
  it('re-indexes the searchable pages with their words as written, and the triggers keep it in step', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-migrate13-'));
    const path = join(dir, 'svc.db');
    try {
      // A database at version 12, written through its own triggers (stems in extra columns).
      const old = new Store(path, { migrate: false });
      old.db.transaction(() => {
        for (const m of MIGRATIONS.filter((m) => m.version <= 12)) old.db.exec(m.sql);
      })();
      old.db.pragma('user_version = 12');
      // Written as rows of that schema (today's writers also write columns later migrations add).
      const insert =
        old.db.prepare(`INSERT INTO pages (url, host, http_status, indexed, show_in_search, title, language, content, last_crawled)
        VALUES (?, '127.0.0.1:18111', 200, 1, ?, ?, ?, ?, '2026-11-25T00:00:00.000Z')`);
      for (const [path, title, content, language, shown] of [
        ['/en', 'Indexes', 'Window functions and the ProxyPass directive', 'en', 1],
        ['/sv', 'Husen', 'Husen byggdes av trä', 'sv', 1],
        ['/hidden', 'Hidden', 'functions hidden', null, 0],
      ] as const)
        insert.run(`${BASE}${path}`, shown, title, language, content);
      const columns = (s: Store) => s.db.prepare(`SELECT name FROM pragma_table_info('pages_fts')`).pluck().all();
      expect(columns(old)).toContain('terms');
      const match = (s: Store, q: string) =>
        s.db
          .prepare(
            `SELECT p.url FROM pages_fts f JOIN pages p ON p.id = f.rowid WHERE pages_fts MATCH ? ORDER BY p.url`,
          )
          .pluck()
          .all(q)
          .map((u) => new URL(String(u)).pathname);
      expect(match(old, 'function')).toEqual(['/en']);
      old.close();

      const s = new Store(path);
      expect(s.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(13);
      // Migration 23 added the address's words (path-migration.test.ts).
      expect(columns(s)).toEqual(['title', 'superwords', 'tags', 'content', 'path_words']);
      // The stems are gone from the index, the words as written are there; searches find both.
      expect(match(s, 'function')).toEqual([]);
      expect(match(s, 'proxy')).toEqual([]);
      expect(match(s, 'functions')).toEqual(['/en']);
      const found = (q: string) => searchPages(s, q, {}).hits.map((h) => new URL(h.url).pathname);
      expect(found('function')).toEqual(['/en']);
      expect(found('proxy pass')).toEqual(['/en']);
      expect(found('hus')).toEqual(['/sv']);
      expect(found('hidden')).toEqual([]);
      expect(s.db.prepare('SELECT stemmer FROM search_stemmers ORDER BY stemmer').pluck().all()).toEqual([
        'english',
        'swedish',
      ]);
      integrityCheck(s);
      // Writing and deleting pages keeps both indexes in step, with no function of ours in the triggers' indexing.
      savePages(s, [
        page('/en', { title: 'Omega', content: 'omega', language: 'en' }),
        page('/new', { title: 'New', content: 'running', language: 'fi' }),
      ]);
      expect(match(s, 'functions')).toEqual([]);
      expect(match(s, 'omega')).toEqual(['/en']);
      s.db.prepare(`DELETE FROM pages WHERE url LIKE '%/sv'`).run();
      expect(match(s, 'husen')).toEqual([]);
      integrityCheck(s);
      expect(s.db.prepare('SELECT stemmer FROM search_stemmers ORDER BY stemmer').pluck().all()).toEqual([
        'english',
        'finnish',
        'swedish',
      ]);
      s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
