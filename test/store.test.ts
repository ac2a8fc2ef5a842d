import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCrawl, getCrawl, lastFullCrawl, setCrawlStatus } from '../src/backend/store/crawls.js';
import { savePages, type PageWrite } from '../src/backend/store/pages.js';
import { MIGRATIONS } from '../src/backend/store/migrations.js';
import { Store } from '../src/backend/store/store.js';

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
});
