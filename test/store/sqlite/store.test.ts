// The SQLite store: WAL at open, every migration applied, and what each migration does to a database made before it
// (the full-text indexes, headings, link text), checked on the file itself.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { savePages } from '../../../src/store/sqlite/writes.js';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations/index.js';
import { Store } from '../../../src/store/sqlite/store.js';
import { registerTermFunctions } from '../../../src/store/search-index/terms.js';
import { searchPages } from '../../../src/store/search-index/search.js';
import type { PageWrite } from '../../../src/model/crawl-writes.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'svc-store-')), 'svc.db');

function page(url: string, over: Partial<PageWrite> = {}): PageWrite {
  return {
    url,
    host: '127.0.0.1:1',
    httpStatus: 200,
    contentType: 'text/html',
    indexed: true,
    showInSearch: true,
    title: 'T',
    language: 'en',
    tags: ['public'],
    superwords: [],
    content: 'hello world',
    meta: null,
    created: null,
    modified: null,
    sitemapLastmod: null,
    crawlId: 1,
    links: [],
    ...over,
  };
}

describe('store', () => {
  it('opens in WAL mode with every migration applied', () => {
    const s = new Store(dbPath());
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    s.close();
  });

  it('keeps the full-text index in step with pages', () => {
    const s = new Store(dbPath());
    savePages(s, [
      page('http://a/1', { content: 'alpha beta' }),
      page('http://a/2', { content: 'gamma', indexed: false }),
    ]);
    const hits = () => s.db.prepare(`SELECT count(*) n FROM pages_fts WHERE pages_fts MATCH ?`);
    expect((hits().get('alpha') as { n: number }).n).toBe(1);
    expect((hits().get('gamma') as { n: number }).n).toBe(0);
    savePages(s, [page('http://a/1', { content: 'delta' })]);
    expect((hits().get('alpha') as { n: number }).n).toBe(0);
    expect((hits().get('delta') as { n: number }).n).toBe(1);
    s.db.prepare('DELETE FROM pages').run();
    expect((hits().get('delta') as { n: number }).n).toBe(0);
    expect(
      s.db.prepare(`INSERT INTO pages_fts(pages_fts) VALUES ('integrity-check')`).run().changes,
    ).toBeGreaterThanOrEqual(0);
  });

  it("migration 12 keeps a page's headings beside it: written, replaced, cleared and removed with the page", () => {
    const s = new Store(dbPath());
    const headings = () =>
      s.db
        .prepare('SELECT p.url, h.headings FROM page_headings h JOIN pages p ON p.id = h.page_id ORDER BY p.url')
        .all();
    savePages(s, [
      page('http://127.0.0.1:1/a', { headings: ['9.22. Window Functions', 'Notes'] }),
      page('http://127.0.0.1:1/b'),
      page('http://127.0.0.1:1/c', { headings: ['C'] }),
    ]);
    expect(headings()).toEqual([
      { url: 'http://127.0.0.1:1/a', headings: '9.22. Window Functions\nNotes' },
      { url: 'http://127.0.0.1:1/c', headings: 'C' },
    ]);
    savePages(s, [
      page('http://127.0.0.1:1/a', { headings: ['Other'] }),
      page('http://127.0.0.1:1/c', { headings: [] }),
    ]);
    expect(headings()).toEqual([{ url: 'http://127.0.0.1:1/a', headings: 'Other' }]);
    s.db.prepare('DELETE FROM pages WHERE url = ?').run('http://127.0.0.1:1/a');
    expect(headings()).toEqual([]);
    s.close();
  });

  it('migration 3 rebuilds the full-text indexes without prefix indexes, from the searchable pages only', () => {
    const path = dbPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    // A database as version 2 left it: prefix indexes, and pages of every kind.
    const v2 = MIGRATIONS.filter((m) => m.version <= 2);
    for (const m of v2) old.exec(m.sql);
    old.pragma(`user_version = ${v2.at(-1)!.version}`);
    // Rows as the version-2 schema holds them (today's savePages writes columns added later).
    const insert = old.prepare(
      `INSERT INTO pages (url, host, http_status, indexed, show_in_search, title, content, last_crawled) VALUES (?, 'a', 200, ?, ?, ?, ?, '2026-01-01')`,
    );
    insert.run('http://a/shown', 1, 1, 'Alpha title', 'alpha visible');
    insert.run('http://a/hidden', 1, 0, 'Hidden', 'alpha hidden');
    insert.run('http://a/pdf', 0, 1, 'Document', 'alpha document');
    expect(old.prepare(`SELECT sql FROM sqlite_master WHERE name = 'pages_fts'`).pluck().get()).toContain(`prefix='3'`);
    old.close();

    const s = new Store(path);
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    for (const t of ['pages_fts', 'pages_title_fts'])
      expect(s.db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(t)).not.toContain('prefix');
    const match = (t: string, q: string) =>
      s.db.prepare(`SELECT p.url FROM ${t} f JOIN pages p ON p.id = f.rowid WHERE ${t} MATCH ?`).pluck().all(q);
    expect(match('pages_fts', 'alpha')).toEqual(['http://a/shown']);
    expect(match('pages_title_fts', 'alpha')).toEqual(['http://a/shown']);
    // The triggers still keep the new indexes in step.
    savePages(s, [page('http://a/shown', { content: 'omega' })]);
    expect(match('pages_fts', 'alpha')).toEqual([]);
    expect(match('pages_fts', 'omega')).toEqual(['http://a/shown']);
    for (const t of ['pages_fts', 'pages_title_fts'])
      s.db.prepare(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`).run();
    s.close();
  });
  it('migration 6 adds link text, blocked outcomes and page anchors, and report rows carry element and text', () => {
    const path = dbPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    const before = MIGRATIONS.filter((m) => m.version < 6);
    registerTermFunctions(old);
    for (const m of before) old.exec(m.sql);
    old.pragma(`user_version = ${before.at(-1)!.version}`);
    // A problem link stored before the migration: its report row gets the link's element.
    old
      .prepare(
        `INSERT INTO pages (id, url, host, http_status, last_crawled) VALUES (1, 'http://a/', 'a', 200, '2026-01-01')`,
      )
      .run();
    old.prepare(`INSERT INTO links (page_id, url, element) VALUES (1, 'http://a/pic.png', 'img')`).run();
    old
      .prepare(
        `INSERT INTO link_outcomes (url, http_status, reason, message, checked_at) VALUES ('http://a/pic.png', 404, 'not_found', '404 Not Found', '2026-01-01')`,
      )
      .run();
    old.close();

    const s = new Store(path);
    expect(s.db.prepare('SELECT element, text FROM report_links').all()).toEqual([{ element: 'img', text: '' }]);
    expect(s.db.prepare('SELECT blocked FROM link_outcomes').pluck().get()).toBe(0);
    // New writes carry text, anchors, and report rows with element and text (from savePages and from the outcome trigger).
    savePages(s, [
      page('http://a/', {
        links: [
          { url: 'http://a/pic.png', element: 'img', text: 'A picture' },
          { url: 'http://a/later', element: 'a', text: 'Later' },
        ],
        anchors: ['top-1'],
      }),
    ]);
    expect(s.db.prepare(`SELECT anchors FROM pages WHERE url = 'http://a/'`).pluck().get()).toBe('["top-1"]');
    s.db
      .prepare(
        `INSERT INTO link_outcomes (url, http_status, reason, message, checked_at, blocked) VALUES ('http://a/later', 999, 'server_error', 'blocked: HTTP 999', '2026-01-01', 1)`,
      )
      .run();
    expect(s.db.prepare('SELECT url, element, text FROM report_links ORDER BY url').all()).toEqual([
      { url: 'http://a/later', element: 'a', text: 'Later' },
      { url: 'http://a/pic.png', element: 'img', text: 'A picture' },
    ]);
    s.close();
  });

  it('migrations 4 and 13 re-index an existing database, searchable pages only; words are found by their stems at query time', () => {
    const path = dbPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    const v3 = MIGRATIONS.filter((m) => m.version <= 3);
    for (const m of v3) old.exec(m.sql);
    old.pragma(`user_version = ${v3.at(-1)!.version}`);
    // Rows as a version-3 database holds them (later migrations add columns savePages writes).
    const insert = old.prepare(
      `INSERT INTO pages (url, host, http_status, indexed, show_in_search, title, language, content, last_crawled) VALUES (?, 'a', 200, 1, ?, ?, ?, ?, '2026-01-01')`,
    );
    insert.run('http://a/en', 1, 'Indexes', 'en', 'Window functions and the ProxyPass directive');
    insert.run('http://a/sv', 1, 'http://a/sv', 'sv', 'Husen byggdes av trä');
    insert.run('http://a/hidden', 0, 'http://a/hidden', null, 'functions hidden');
    const match = (db: Database.Database, t: string, q: string) =>
      db
        .prepare(`SELECT p.url FROM ${t} f JOIN pages p ON p.id = f.rowid WHERE ${t} MATCH ? ORDER BY p.url`)
        .pluck()
        .all(q);
    expect(match(old, 'pages_fts', 'function')).toEqual([]);
    old.close();

    const s = new Store(path);
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    // The index holds the words as written (migration 13); a search finds them by their stems.
    expect(match(s.db, 'pages_fts', 'function')).toEqual([]);
    expect(match(s.db, 'pages_fts', 'functions')).toEqual(['http://a/en']);
    const found = (q: string) => searchPages(s, q, {}).hits.map((h) => h.url);
    expect(found('function')).toEqual(['http://a/en']);
    expect(found('proxy pass')).toEqual(['http://a/en']);
    expect(found('hus')).toEqual(['http://a/sv']);
    expect(found('index')).toEqual(['http://a/en']);
    expect(s.db.prepare('SELECT stemmer FROM search_stemmers ORDER BY stemmer').pluck().all()).toEqual([
      'english',
      'swedish',
    ]);
    // The triggers keep the contentless indexes in step: a changed page loses its old terms, a deleted one all.
    savePages(s, [page('http://a/en', { content: 'omega', title: 'Omega', language: 'en' })]);
    expect(match(s.db, 'pages_fts', 'functions')).toEqual([]);
    expect(match(s.db, 'pages_fts', 'omega')).toEqual(['http://a/en']);
    s.db.prepare(`DELETE FROM pages WHERE url = 'http://a/sv'`).run();
    expect(match(s.db, 'pages_fts', 'husen')).toEqual([]);
    for (const t of ['pages_fts', 'pages_title_fts'])
      s.db.prepare(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`).run();
    expect(s.db.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get()).toBe(1);
    s.close();
  });
});
