// The URL path field added to a store that already holds pages (SQLite migration 23, PostgreSQL migration 13 and the
// open's fill): afterwards every stored page is indexed with its address's words and found by them, a pending
// crawl's row included, and pages written later get them from the writers. `svc repair` rebuilds the same index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migration as pgSearchUrlPath } from '../../../src/store/pg/migrations/013-search-url-path.js';
import { migratePg, PG_MIGRATIONS } from '../../../src/store/pg/migrations/index.js';
import { fillPathWords } from '../../../src/store/pg/path-words-fill.js';
import type { PgSql } from '../../../src/store/pg/pg-sql.js';
import { searchPagesPg } from '../../../src/store/pg/search.js';
import { finishPendingIndex } from '../../../src/store/pending-index.js';
import { searchPages } from '../../../src/store/search-index/search.js';
import { migration as searchUrlPath } from '../../../src/store/sqlite/migrations/023-search-url-path.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations/index.js';
import { rebuildDerived } from '../../../src/store/sqlite/maintenance.js';
import { savePages } from '../../../src/store/sqlite/writes.js';
import { Store } from '../../../src/store/sqlite/store.js';
import { integrityCheck } from '../../support/stored.js';
import { pgFixture, skip, type PgFixture } from '../../support/postgres.js';
import { BASE, searchPage as page } from '../../support/writes.js';

/** Pages as the schema before the path field stored them (the writers of today write path_words too). */
const OLD_PAGES = [
  { path: '/programs/apachectl.html', title: 'Server Control Interface', content: 'Start and stop the server.' },
  { path: '/invoking.html', title: 'Starting the server', content: 'Run the server in the background.' },
  { path: '/hidden/secret-page.html', title: 'Hidden', content: 'Not in search.', hidden: true },
];
const INSERT_OLD = `INSERT INTO pages (url, host, http_status, indexed, show_in_search, title, language, content, last_crawled)
  VALUES (?, '127.0.0.1:18111', 200, 1, ?, ?, 'en', ?, '2026-11-25T00:00:00.000Z')`;
const oldRow = (p: (typeof OLD_PAGES)[number]) => [`${BASE}${p.path}`, p.hidden ? 0 : 1, p.title, p.content];
const paths = (urls: string[]) => urls.map((u) => u.slice(BASE.length));

describe('the URL path field on a SQLite store with pages (migration 23)', () => {
  it('indexes every stored page with its address words, and the writers and a pending crawl keep them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-migrate23-'));
    const file = join(dir, 'svc.db');
    try {
      const old = new Store(file, { migrate: false });
      old.db.transaction(() => {
        const before = MIGRATIONS.filter((m) => m.version < searchUrlPath.version);
        for (const m of before) old.db.exec(m.sql);
        old.db.pragma(`user_version = ${before.at(-1)!.version}`);
        for (const p of OLD_PAGES) old.db.prepare(INSERT_OLD).run(...oldRow(p));
        // A crawl's searchable columns left pending for the stored page (the next open or the crawl finishes it).
        old.db
          .prepare(
            `INSERT INTO page_index_pending (page_id, indexed, show_in_search, fresh, title, language, tags, superwords, content)
             SELECT id, 1, 1, 0, title, language, '', '', 'Run the server, now with options.' FROM pages WHERE url LIKE '%/invoking.html'`,
          )
          .run();
      })();
      old.close();

      const s = new Store(file);
      expect(s.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(searchUrlPath.version);
      expect(s.db.prepare(`SELECT name FROM pragma_table_info('pages_fts')`).pluck().all()).toEqual([
        'title',
        'superwords',
        'tags',
        'content',
        'path_words',
      ]);
      // The rows are not written again (their column stays NULL until a crawl writes them); the index has the words.
      expect(s.db.prepare('SELECT path_words FROM pages ORDER BY id').pluck().all()).toEqual([null, null, null]);
      const found = (q: string) => paths(searchPages(s, q, {}).hits.map((h) => h.url));
      expect(found('apachectl')).toEqual(['/programs/apachectl.html']);
      expect(found('programs')).toEqual(['/programs/apachectl.html']);
      expect(found('secret')).toEqual([]);
      integrityCheck(s);
      // The open moved the pending row into the index: the page keeps its address words.
      expect(found('options')).toEqual(['/invoking.html']);
      expect(found('invoking')).toEqual(['/invoking.html']);
      // A rebuild (svc repair) indexes the same words.
      rebuildDerived(s);
      expect(found('apachectl')).toEqual(['/programs/apachectl.html']);
      integrityCheck(s);
      // A page written now gets its words from the writer.
      savePages(s, [page('/howto/dns-caveats.html', { title: 'Name lookups', content: 'Lookups.' })]);
      expect(found('dns caveats')).toEqual(['/howto/dns-caveats.html']);
      s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(skip)('the URL path field on a PostgreSQL store with pages (migration 13 and the fill at open)', () => {
  let f: PgFixture;
  beforeAll(() => {
    f = pgFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('fills and indexes every stored page with its address words, keeping its headings', async () => {
    const sql: PgSql = await f.open({ migrate: false });
    await migratePg(
      sql,
      PG_MIGRATIONS.filter((m) => m.version < pgSearchUrlPath.version),
    );
    for (const p of OLD_PAGES) await sql.run(INSERT_OLD, oldRow(p));
    await sql.run(
      `INSERT INTO page_headings (page_id, headings) SELECT id, 'Options of the control script' FROM pages WHERE url LIKE '%/apachectl.html'`,
    );
    await sql.run(
      `INSERT INTO page_index_pending (page_id, indexed, show_in_search, fresh, title, language, tags, superwords, content)
       SELECT id, 1, 1, 0, title, language, '', '', 'Run the server, now with flags.' FROM pages WHERE url LIKE '%/invoking.html'`,
    );
    expect(await migratePg(sql)).toEqual(
      PG_MIGRATIONS.filter((m) => m.version >= pgSearchUrlPath.version).map((m) => m.version),
    );
    expect(await fillPathWords(sql)).toBe(3);
    expect(await fillPathWords(sql)).toBe(0);
    expect((await sql.all<{ w: string }>('SELECT path_words AS w FROM pages ORDER BY id')).map((r) => r.w)).toEqual([
      'programs apachectl',
      'invoking',
      'hidden secret page',
    ]);
    const found = async (q: string) => paths((await searchPagesPg(sql, q, {})).hits.map((h) => h.url));
    expect(await found('apachectl')).toEqual(['/programs/apachectl.html']);
    // The vector's B part holds the headings still, beside the address.
    expect(await found('control script')).toEqual(['/programs/apachectl.html']);
    expect(await found('secret')).toEqual([]);
    // The pending row was given the page's words: applying it keeps them.
    await finishPendingIndex(sql);
    expect(await found('flags')).toEqual(['/invoking.html']);
    expect(await found('invoking')).toEqual(['/invoking.html']);
  });
});
