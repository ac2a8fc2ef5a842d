import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCrawl, getCrawl, lastFullCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import { savePages } from '../../src/store/pages.js';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { Store } from '../../src/store/store.js';
import { type PageWrite } from '../../src/model/crawl-writes.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'svc-store-')), 'svc.db');

function page(url: string, over: Partial<PageWrite> = {}): PageWrite {
  return {
    url, host: '127.0.0.1:1', httpStatus: 200, contentType: 'text/html', indexed: true, showInSearch: true, title: 'T', language: 'en',
    tags: ['public'], superwords: [], content: 'hello world', meta: null, created: null, modified: null, sitemapLastmod: null, crawlId: 1, links: [],
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

  it('marks a crawl left running by a dead process failed on the next open', () => {
    const path = dbPath();
    const a = new Store(path);
    const rec = createCrawl(a, 'p:eu', 'full')!;
    setCrawlStatus(a, rec.id, 'running');
    // Another process sharing the file sees a live owner and leaves the crawl alone …
    const sharing = new Store(path);
    expect(sharing.recoveredCrawls).toEqual([]);
    expect(getCrawl(sharing, 'p:eu', rec.id)!.status).toBe('running');
    sharing.close();
    // … but once its process is gone, the next open marks it failed.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    a.db.prepare('UPDATE crawls SET owner_pid = ? WHERE id = ?').run(Number(gone.stdout), rec.id);
    a.close();
    const b = new Store(path);
    expect(b.recoveredCrawls).toEqual([rec.id]);
    expect(getCrawl(b, 'p:eu', rec.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('ended') });
    b.close();
  });

  it('refuses a second crawl while one is queued or running', () => {
    const s = new Store(dbPath());
    expect(createCrawl(s, 'p:eu', 'full')).not.toBeNull();
    expect(createCrawl(s, 'p:eu', 'partial')).toBeNull();
    expect(createCrawl(s, 'q:eu', 'partial')).not.toBeNull();
  });

  it('last_full_crawl counts only completed full crawls', () => {
    const s = new Store(dbPath());
    const full = createCrawl(s, 'p:eu', 'full')!;
    setCrawlStatus(s, full.id, 'completed');
    const done = lastFullCrawl(s, 'p:eu');
    expect(done).not.toBeNull();
    const manual = createCrawl(s, 'p:eu', 'manual', ['http://x/'])!;
    setCrawlStatus(s, manual.id, 'completed');
    const failed = createCrawl(s, 'p:eu', 'full')!;
    setCrawlStatus(s, failed.id, 'failed');
    expect(lastFullCrawl(s, 'p:eu')).toBe(done);
  });

  it('keeps the full-text index in step with pages', () => {
    const s = new Store(dbPath());
    savePages(s, [page('http://a/1', { content: 'alpha beta' }), page('http://a/2', { content: 'gamma', indexed: false })]);
    const hits = () => s.db.prepare(`SELECT count(*) n FROM pages_fts WHERE pages_fts MATCH ?`);
    expect((hits().get('alpha') as { n: number }).n).toBe(1);
    expect((hits().get('gamma') as { n: number }).n).toBe(0);
    savePages(s, [page('http://a/1', { content: 'delta' })]);
    expect((hits().get('alpha') as { n: number }).n).toBe(0);
    expect((hits().get('delta') as { n: number }).n).toBe(1);
    s.db.prepare('DELETE FROM pages').run();
    expect((hits().get('delta') as { n: number }).n).toBe(0);
    expect(s.db.prepare(`INSERT INTO pages_fts(pages_fts) VALUES ('integrity-check')`).run().changes).toBeGreaterThanOrEqual(0);
  });

  it('migration 3 rebuilds the full-text indexes without prefix indexes, from the searchable pages only', () => {
    const path = dbPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    // A database as version 2 left it: prefix indexes, and pages of every kind.
    const v2 = MIGRATIONS.filter((m) => m.version <= 2);
    for (const m of v2) old.exec(m.sql);
    old.pragma(`user_version = ${v2.at(-1)!.version}`);
    const v2Store = { db: old, prepare: (sql: string) => old.prepare(sql), tx: <T>(fn: () => T): T => old.transaction(fn).immediate() } as unknown as Store;
    savePages(v2Store, [
      page('http://a/shown', { content: 'alpha visible', title: 'Alpha title' }),
      page('http://a/hidden', { content: 'alpha hidden', showInSearch: false }),
      page('http://a/pdf', { content: 'alpha document', indexed: false }),
    ]);
    expect(old.prepare(`SELECT sql FROM sqlite_master WHERE name = 'pages_fts'`).pluck().get()).toContain(`prefix='3'`);
    old.close();

    const s = new Store(path);
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    for (const t of ['pages_fts', 'pages_title_fts']) expect(s.db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(t)).not.toContain('prefix');
    const match = (t: string, q: string) => s.db.prepare(`SELECT p.url FROM ${t} f JOIN pages p ON p.id = f.rowid WHERE ${t} MATCH ?`).pluck().all(q);
    expect(match('pages_fts', 'alpha')).toEqual(['http://a/shown']);
    expect(match('pages_title_fts', 'alpha')).toEqual(['http://a/shown']);
        // The triggers still keep the new indexes in step.
    savePages(s, [page('http://a/shown', { content: 'omega' })]);
    expect(match('pages_fts', 'alpha')).toEqual([]);
    expect(match('pages_fts', 'omega')).toEqual(['http://a/shown']);
    for (const t of ['pages_fts', 'pages_title_fts']) s.db.prepare(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`).run();
    s.close();
  });

  it('migration 4 re-indexes an existing database with stems and identifier parts, searchable pages only', () => {
    const path = dbPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    const v3 = MIGRATIONS.filter((m) => m.version <= 3);
    for (const m of v3) old.exec(m.sql);
    old.pragma(`user_version = ${v3.at(-1)!.version}`);
    const v3Store = { db: old, prepare: (sql: string) => old.prepare(sql), tx: <T>(fn: () => T): T => old.transaction(fn).immediate() } as unknown as Store;
    savePages(v3Store, [
      page('http://a/en', { content: 'Window functions and the ProxyPass directive', title: 'Indexes', language: 'en' }),
      page('http://a/sv', { content: 'Husen byggdes av trä', language: 'sv' }),
      page('http://a/hidden', { content: 'functions hidden', showInSearch: false }),
    ]);
    const match = (db: Database.Database, t: string, q: string) =>
      db.prepare(`SELECT p.url FROM ${t} f JOIN pages p ON p.id = f.rowid WHERE ${t} MATCH ? ORDER BY p.url`).pluck().all(q);
    expect(match(old, 'pages_fts', 'function')).toEqual([]);
    old.close();

    const s = new Store(path);
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(match(s.db, 'pages_fts', 'function')).toEqual(['http://a/en']);
    expect(match(s.db, 'pages_fts', 'proxy')).toEqual(['http://a/en']);
    expect(match(s.db, 'pages_fts', 'hus')).toEqual(['http://a/sv']);
    expect(match(s.db, 'pages_title_fts', 'index')).toEqual(['http://a/en']);
    expect(s.db.prepare('SELECT stemmer FROM search_stemmers ORDER BY stemmer').pluck().all()).toEqual(['english', 'swedish']);
    // The triggers keep the contentless indexes in step: a changed page loses its old terms, a deleted one all.
    savePages(s, [page('http://a/en', { content: 'omega', title: 'Omega', language: 'en' })]);
    expect(match(s.db, 'pages_fts', 'function')).toEqual([]);
    expect(match(s.db, 'pages_fts', 'omega')).toEqual(['http://a/en']);
    s.db.prepare(`DELETE FROM pages WHERE url = 'http://a/sv'`).run();
    expect(match(s.db, 'pages_fts', 'hus')).toEqual([]);
    for (const t of ['pages_fts', 'pages_title_fts']) s.db.prepare(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`).run();
    expect(s.db.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get()).toBe(1);
    s.close();
  });
});
