// Crawl records on both databases: a crawl left by a dead process is marked failed at the next open, one crawl of a
// project at a time, and which crawl counts as the last full one.
import { afterAll, describe, expect, it } from 'vitest';
import { createCrawl, getCrawl, lastFullCrawl, setCrawlStatus } from '../../src/store/crawls.js';
import { DIALECTS, storeKit } from '../support/stores.js';

describe.each(DIALECTS)('crawl records on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('marks a crawl left running by a dead process failed on the next open', async () => {
    const { store: a, reopen } = await kit.fresh();
    const rec = (await createCrawl(a.sql, 'p:eu', 'full'))!;
    await setCrawlStatus(a.sql, rec.id, 'running');
    // Another process sharing the file sees a live owner and leaves the crawl alone …
    const sharing = await reopen();
    expect(sharing.recoveredCrawls).toEqual([]);
    expect((await getCrawl(sharing.sql, 'p:eu', rec.id))!.status).toBe('running');
    await sharing.close();
    // … but once its owner has stopped beating for 30 s (whatever its PID), the next open marks it failed.
    await a.sql.run('UPDATE crawls SET heartbeat_at = ? WHERE id = ?', [Date.now() - 31_000, rec.id]);
    await a.close();
    const b = await reopen();
    expect(b.recoveredCrawls).toEqual([rec.id]);
    expect(await getCrawl(b.sql, 'p:eu', rec.id)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('ended'),
    });
    await b.close();
  });

  it('refuses a second crawl while one is queued or running', async () => {
    const { store: s } = await kit.fresh();
    expect(await createCrawl(s.sql, 'p:eu', 'full')).not.toBeNull();
    expect(await createCrawl(s.sql, 'p:eu', 'partial')).toBeNull();
    expect(await createCrawl(s.sql, 'q:eu', 'partial')).not.toBeNull();
  });

  it('last_full_crawl counts only completed full crawls', async () => {
    const { store: s } = await kit.fresh();
    const full = (await createCrawl(s.sql, 'p:eu', 'full'))!;
    await setCrawlStatus(s.sql, full.id, 'completed');
    const done = await lastFullCrawl(s.sql, 'p:eu');
    expect(done).not.toBeNull();
    const manual = (await createCrawl(s.sql, 'p:eu', 'manual', ['http://x/']))!;
    await setCrawlStatus(s.sql, manual.id, 'completed');
    const failed = (await createCrawl(s.sql, 'p:eu', 'full'))!;
    await setCrawlStatus(s.sql, failed.id, 'failed');
    expect(await lastFullCrawl(s.sql, 'p:eu')).toBe(done);
  });
});
